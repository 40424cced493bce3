import { describe, expect, it } from 'vitest';
import { environmentName, fileStem, UniqueNames, slugify, variableName } from './names.js';

describe('slugify', () => {
  it.each([
    ['Home page', 'home-page'],
    ['Payments API (EU)', 'payments-api-eu'],
    ['  Crème brûlée  ', 'creme-brulee'],
    ['oncall@example.com', 'oncall-example-com'],
    ['#ops', 'ops'],
    ['!!!', 'check'],
    ['', 'check'],
  ])('turns %j into %j', (name, slug) => {
    expect(slugify(name, 'check')).toBe(slug);
  });

  it('keeps logical ids to 64 characters without a trailing dash', () => {
    expect(slugify(`${'a'.repeat(63)} b`, 'check')).toBe('a'.repeat(63));
  });
});

describe('UniqueNames', () => {
  it('numbers repeats from 2 and skips names already taken', () => {
    const names = new UniqueNames(['home', 'home-3']);
    expect([names.claim('home'), names.claim('home'), names.claim('home'), names.claim('api')]).toEqual(['home-2', 'home-4', 'home-5', 'api']);
  });
});

describe('variableName', () => {
  it.each([
    ['payments', 'Group', 'paymentsGroup'],
    ['payments-group', 'Group', 'paymentsGroup'],
    ['oncall-example-com', '', 'oncallExampleCom'],
    ['2fa', 'Service', '_2faService'],
    ['delete', '', 'delete_'],
    ['process', '', 'process_'],
    ['require', '', 'require_'],
    ['global-this', '', 'globalThis_'],
  ])('names %j with suffix %j %j', (logicalId, suffix, name) => {
    expect(variableName(logicalId, suffix)).toBe(name);
  });
});

describe('fileStem', () => {
  it.each([
    ['checks', 'checks'],
    ['con', 'con-checks'],
    ['nul', 'nul-checks'],
    ['lpt1', 'lpt1-checks'],
    ['console', 'console'],
  ])('writes the stem %j as %j, which every file system accepts', (slug, stem) => {
    expect(fileStem(slug)).toBe(stem);
  });
});

describe('environmentName', () => {
  it.each([
    ['HOME_TOKEN', 'HOME_TOKEN'],
    ['1ST_TOKEN', '_1ST_TOKEN'],
    ['', '_'],
  ])('writes %j as %j, a name process.env.NAME can read', (text, name) => {
    expect(environmentName(text)).toBe(name);
  });
});
