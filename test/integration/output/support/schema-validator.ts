import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import { TABLE_NAMES, type TableName } from '../../../../src/output/tables.js';

const addFormats = formatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

/** Validators compiled from the committed schemas/<table>.json files (the warehouse contract). */
export function loadSchemaValidators(): Record<TableName, ValidateFunction> {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
  addFormats(ajv);
  const dir = join(import.meta.dirname, '..', '..', '..', '..', 'schemas');
  return Object.fromEntries(
    TABLE_NAMES.map((t) => [t, ajv.compile(JSON.parse(readFileSync(join(dir, `${t}.json`), 'utf8')))]),
  ) as Record<TableName, ValidateFunction>;
}

/** Throws with ajv's messages when a row does not match its table's schema file. */
export function assertValidRow(validators: Record<TableName, ValidateFunction>, table: TableName, row: unknown): void {
  const validate = validators[table];
  if (!validate(row)) {
    throw new Error(`${table} row invalid: ${JSON.stringify(validate.errors)}\n${JSON.stringify(row)}`);
  }
}
