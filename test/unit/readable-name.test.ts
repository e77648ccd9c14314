import { describe, expect, it } from 'vitest';
import { displayNameOf, readableName } from '#shared/domain/tenants/me.ts';

describe('readableName', () => {
  it("reads a person's name from an email", () => {
    expect(readableName('jane.doe@x.com')).toBe('Jane Doe');
    expect(readableName('JANE_DOE@x.com')).toBe('Jane Doe');
    expect(readableName('j-smith+support@x.com')).toBe('J Smith');
    expect(readableName('élodie.durand@x.fr')).toBe('Élodie Durand');
    expect(readableName('sam42@x.com')).toBe('Sam');
  });

  it('gives no name for an address of a role, or none at all', () => {
    for (const e of [
      'owner@demo.example',
      'support@x.com',
      'info+shop@x.com',
      'no-reply@x.com',
      '1234@x.com',
      '',
      null,
    ])
      expect(readableName(e)).toBeNull();
  });

  it("is what a member's messages carry until they choose a name; never the role word", () => {
    expect(displayNameOf(null, { email: 'jane.doe@x.com' })).toBe('Jane Doe');
    expect(displayNameOf({ displayName: null }, { email: 'owner@demo.example' })).toBe('Support');
    expect(displayNameOf({ displayName: 'Dana' }, { email: 'owner@demo.example' })).toBe('Dana');
  });
});
