import { describe, expect, it } from 'vitest';
import { describeLoadTarget, parseLoadTarget } from '../../../src/config/load-target.js';
import { DIALECTS } from '../../../src/warehouse/dialects.js';
import { DEFAULT_TARGET, ENGINE_NAMES, LOAD_TARGETS, type LoadTarget } from '../../../src/warehouse/engines.js';
import { openWarehouse } from '../../../src/warehouse/open-warehouse.js';

describe('the registry of engines', () => {
  it('holds a dialect for every engine, named as the engine', () => {
    for (const name of ENGINE_NAMES) expect(DIALECTS[name].name).toBe(name);
    expect(Object.keys(DIALECTS).sort()).toEqual([...ENGINE_NAMES].sort());
  });

  it('reads back the text of each target, and lists every target’s form for a text no engine takes', () => {
    const file = DEFAULT_TARGET.fileBeside('dir', 'state');
    expect(parseLoadTarget(DEFAULT_TARGET.text(file))).toEqual({ target: file });
    for (const engine of LOAD_TARGETS) expect(ENGINE_NAMES).toContain(engine.kind);
    const refused = parseLoadTarget('mysql://db.example.com/warehouse');
    expect(refused).toEqual({ problem: expect.stringMatching(/^expected /) });
    for (const engine of LOAD_TARGETS) expect((refused as { problem: string }).problem).toContain(engine.form);
  });

  it('refuses a target of a kind no engine registers, rather than opening it as another engine’s', async () => {
    const stranger = { kind: 'mysql', url: 'mysql://db.example.com/warehouse' } as unknown as LoadTarget;
    expect(() => describeLoadTarget(stranger)).toThrow(/no engine in the registry loads a target of kind mysql/);
    await expect(openWarehouse(stranger)).rejects.toThrow(/no engine in the registry loads a target of kind mysql/);
  });
});
