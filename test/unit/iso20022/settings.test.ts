// A profile's pain.001 settings: the strict schema of the one `iso20022` field, the rules tried in order, the
// default for a profile without the field, and the field kept by the profile store like any other setting.
import { describe, expect, it } from 'vitest';
import { ProfileStore } from '../../../main/profiles/profile-store';
import { bicCountry, DEFAULT_ISO20022_SETTINGS, Iso20022SettingsSchema, operatorFor } from '../../../main/iso20022/settings';

describe('pain.001 settings of a profile', () => {
  it('takes rules by service level or BIC country, upper-cased; refuses unknown keys, a country that is no country, a bad e-mail', () => {
    expect(Iso20022SettingsSchema.parse({ operatorRules: [{ when: 'bicCountry', is: ' ch ', operator: 'CH_BANK' }] })).toEqual({
      operatorRules: [{ when: 'bicCountry', is: 'CH', operator: 'CH_BANK' }],
      fallbackEmail: null,
    });
    const problems = (value: unknown) => Iso20022SettingsSchema.safeParse(value).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(problems({ operatorRules: [], colour: 'red' })).toEqual([expect.stringContaining('colour')]);
    expect(problems({ operatorRules: [{ when: 'bicCountry', is: 'CHE', operator: 'X' }] })).toEqual(['operatorRules.0.is: a BIC country must be two letters such as DE, not "CHE"']);
    expect(problems({ operatorRules: [{ when: 'iban', is: 'DE', operator: 'X' }] })).toHaveLength(1);
    expect(problems({ operatorRules: [{ when: 'serviceLevel', is: 'SEPA', operator: 'has space' }] })).toHaveLength(1);
    expect(problems({ operatorRules: [], fallbackEmail: 'not an address' })).toEqual(['fallbackEmail: fallback e-mail must be an address such as ap@example.com']);
  });

  it('picks the first rule that matches; none matching is null', () => {
    const rules = [
      { when: 'bicCountry' as const, is: 'AT', operator: 'AT_LOCAL' },
      { when: 'serviceLevel' as const, is: 'SEPA', operator: 'EU_SEPA' },
    ];
    expect(operatorFor(rules, { serviceLevels: ['SEPA'], creditorAgentBic: 'BKAUATWWXXX' })).toBe('AT_LOCAL');
    expect(operatorFor(rules, { serviceLevels: ['NURG', 'SEPA'], creditorAgentBic: null })).toBe('EU_SEPA');
    expect(operatorFor(rules, { serviceLevels: [], creditorAgentBic: 'COBADEFF' })).toBeNull();
    expect(operatorFor(DEFAULT_ISO20022_SETTINGS.operatorRules, { serviceLevels: ['SEPA'], creditorAgentBic: null })).toBe('EU_SEPA');
    expect([bicCountry('UBSWCHZH80A'), bicCountry('mhcbjpjt'), bicCountry('NOTABIC'), bicCountry(null)]).toEqual(['CH', 'JP', null, null]);
  });

  it('is kept by the profile store: absent on a new profile, saved and read back, refused when invalid', () => {
    const store = new ProfileStore(':memory:');
    const p = store.add({ name: 'ERP runs', baseUrl: 'http://127.0.0.1:8787', merchantCode: 'M' });
    expect(p.iso20022).toBeUndefined();
    const settings = { operatorRules: [{ when: 'serviceLevel' as const, is: 'SEPA', operator: 'EU_SEPA' }, { when: 'bicCountry' as const, is: 'CH', operator: 'CH_BANK' }], fallbackEmail: 'ap@acme.example' };
    store.update(p.id, { iso20022: settings });
    expect(store.get(p.id).iso20022).toEqual(settings);
    expect(() => store.update(p.id, { iso20022: { operatorRules: [{ when: 'bicCountry', is: 'Switzerland', operator: 'CH_BANK' }] } })).toThrow(/iso20022\.operatorRules\.0\.is/);
    expect(store.get(p.id).iso20022).toEqual(settings);
    store.close();
  });
});
