import { describe, expect, it } from 'vitest';
import {
  checkOrganizationSizes,
  OrganizationSizesError,
  parseOrganizationSizes,
} from '../../../../src/sandbox/seed/organization-sizes.js';

describe('organization sizes', () => {
  it('reads comma-separated whole numbers, spaces allowed', () => {
    expect(parseOrganizationSizes('1000,300,50')).toEqual([1000, 300, 50]);
    expect(parseOrganizationSizes(' 7 , 0 ')).toEqual([7, 0]);
    expect(parseOrganizationSizes('12')).toEqual([12]);
  });

  it.each([
    ['', 'organization 1: expected a whole number from 0 up, got "" (e.g. 1000,300,50)'],
    ['10,,5', 'organization 2: expected a whole number from 0 up, got "" (e.g. 1000,300,50)'],
    ['10,-5', 'organization 2: expected a whole number from 0 up, got "-5" (e.g. 1000,300,50)'],
    ['10,2.5', 'organization 2: expected a whole number from 0 up, got "2.5" (e.g. 1000,300,50)'],
    [
      '1,2,3,4,5,6,7,8,9',
      'at most 8 organizations (acme, globex, initech, umbrella, hooli, soylent, tyrell, massive), got 9',
    ],
  ])('refuses %j: %s', (spec, message) => {
    expect(() => parseOrganizationSizes(spec)).toThrow(new OrganizationSizesError(message));
  });

  it('checks sizes given as numbers the same way', () => {
    expect(() => checkOrganizationSizes([])).toThrow('expected at least one organization size');
    expect(() => checkOrganizationSizes([5, Number.NaN])).toThrow(
      'organization 2: expected a whole number from 0 up, got NaN',
    );
    expect(() => checkOrganizationSizes([1, 1, 1, 1, 1, 1, 1, 1, 1])).toThrow(/^at most 8 organizations/);
    expect(checkOrganizationSizes([3, 0])).toEqual([3, 0]);
  });
});
