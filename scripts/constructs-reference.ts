/**
 * Generates docs/constructs.md from the JSDoc of `@vigil/constructs`' public API, with the
 * TypeScript compiler API (already a dependency), so the reference can never drift from the code:
 * a test regenerates it and compares. Run `pnpm docs:constructs` after changing a construct.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { RESOURCE_KINDS } from '../packages/constructs/src/types.js';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ENTRY = path.join(REPO_ROOT, 'packages/constructs/src/index.ts');
export const CONSTRUCTS_REFERENCE = path.join(REPO_ROOT, 'docs/constructs.md');

/** Sections of the reference, in reading order; an exported name lands in the first that claims it. */
const SECTIONS: ReadonlyArray<{ title: string; intro: string; names: readonly string[] }> = [
  {
    title: 'Project config',
    intro: '`vigil.config.ts` default-exports `defineConfig({...})` (import it from `@vigil-mon/cli`).',
    names: ['defineConfig', 'VigilConfig', 'ChecklyConfig', 'CheckDefaults', 'StateConfig', 'LocalStateConfig', 'HttpStateConfig', 'ServiceStateConfig', 'PostgresStateConfig', 'S3StateConfig', 'ApiConfig', 'CliConfig', 'MultiStepCheckDefaults', 'BrowserCheckDefaults', 'PlaywrightCheckEntry'],
  },
  {
    title: 'Checks',
    intro: 'Every check takes the common check props below plus its own.',
    names: [
      'ApiCheck', 'ApiCheckProps', 'MultiStepCheck', 'MultiStepCheckProps', 'BrowserCheck', 'BrowserCheckProps',
      'PlaywrightCheck', 'PlaywrightCheckProps', 'PlaywrightSuiteBundle', 'playwrightBundleHash', 'Engine',
      'CheckProps', 'Request', 'KeyValue', 'BasicAuth', 'IncidentTrigger', 'EnvironmentVariable', 'Dependency', 'ScriptSource',
      'AgenticCheck', 'AgenticCheckProps',
    ],
  },
  {
    title: 'Monitors',
    intro: 'Monitors take the common check props too; they never double-check (`doubleCheck` is refused, as in Checkly).',
    names: [
      'TcpMonitor', 'TcpCheck', 'TcpMonitorProps', 'TcpCheckProps', 'TcpRequest',
      'UrlMonitor', 'UrlMonitorProps', 'UrlRequest',
      'DnsMonitor', 'DnsMonitorProps', 'DnsRequest',
      'SslMonitor', 'SslMonitorProps', 'SslRequest', 'SslConfig',
      'IcmpMonitor', 'IcmpMonitorProps', 'IcmpRequest',
      'TracerouteMonitor', 'TracerouteMonitorProps', 'TracerouteRequest',
      'GrpcMonitor', 'GrpcMonitorProps', 'GrpcRequest', 'GrpcConfig',
      'HeartbeatMonitor', 'HeartbeatCheck', 'HeartbeatMonitorProps', 'HeartbeatCheckProps',
    ],
  },
  {
    title: 'Groups, maintenance windows, status pages and private locations',
    intro: '',
    names: ['CheckGroupV2', 'CheckGroup', 'CheckGroupV2Props', 'CheckGroupProps', 'CheckGroupV1', 'CheckGroupV1Props', 'ApiCheckDefaults', 'MaintenanceWindow', 'MaintenanceWindowProps', 'DateInput', 'StatusPageService', 'StatusPageServiceProps', 'PrivateLocation', 'PrivateLocationProps', 'PrivateLocationReference'],
  },
  {
    title: 'Status pages',
    intro: "`vigil server` stores status pages and serves them through its API (`/v1/status-pages`); it does not render the public page yet. A page's cards show StatusPageService constructs (above), created before it.",
    names: ['StatusPage', 'StatusPageProps', 'StatusPageCardProps', 'StatusPageThemeColors', 'StatusPageColors'],
  },
  {
    title: 'Dashboards',
    intro: '`vigil server` stores dashboards and serves them through its API (`/v1/dashboards`); it does not render them as web pages yet.',
    names: ['Dashboard', 'DashboardProps', 'DashboardCss'],
  },
  {
    title: 'Alert channels',
    intro: 'Every alert channel takes the common alert channel props plus its own.',
    names: [
      'AlertChannel',
      'AlertChannelProps',
      'EmailAlertChannel',
      'EmailAlertChannelProps',
      'SlackAlertChannel',
      'SlackAlertChannelProps',
      'SlackAppAlertChannel',
      'SlackAppAlertChannelProps',
      'WebhookAlertChannel',
      'WebhookAlertChannelProps',
      'SmsAlertChannel',
      'SmsAlertChannelProps',
      'PhoneCallAlertChannel',
      'PhoneCallAlertChannelProps',
      'PagerdutyAlertChannel',
      'PagerdutyAlertChannelProps',
      'OpsgenieAlertChannel',
      'OpsgenieAlertChannelProps',
      'MSTeamsAlertChannel',
      'MSTeamsAlertChannelProps',
      'TelegramAlertChannel',
      'TelegramAlertChannelProps',
      'IncidentioAlertChannel',
      'IncidentioAlertChannelProps',
    ],
  },
  {
    title: 'Builders',
    intro: '',
    names: [
      'Frequency',
      'FrequencyValue',
      'AssertionBuilder',
      'NumericAssertionBuilder',
      'GeneralAssertionBuilder',
      'Assertion',
      'RetryStrategyBuilder',
      'RetryStrategy',
      'RetryStrategyOptions',
      'SingleRetryStrategyOptions',
      'RetryCondition',
      'AlertEscalationBuilder',
      'AlertEscalation',
      'Reminders',
      'ParallelRunFailureThreshold',
      'TcpAssertionBuilder', 'TcpGeneralAssertionBuilder', 'TcpNumericAssertionBuilder', 'TcpAssertion',
      'UrlAssertionBuilder', 'UrlStatusCodeAssertionBuilder', 'UrlAssertion',
      'DnsAssertionBuilder', 'DnsGeneralAssertionBuilder', 'DnsNumericAssertionBuilder', 'DnsAssertion',
      'SslAssertionBuilder', 'SslPropertyAssertionBuilder', 'TlsVersion', 'SslAssertion',
      'IcmpAssertionBuilder', 'IcmpAssertionValueBuilder', 'IcmpAssertion', 'IcmpLatencyProperty',
      'TracerouteAssertionBuilder', 'TracerouteResponseTimeAssertionBuilder', 'TracerouteNumericAssertionBuilder', 'TracerouteAssertion', 'TracerouteResponseTimeProperty',
      'GrpcAssertionBuilder', 'GrpcNumericAssertionBuilder', 'GrpcGeneralAssertionBuilder', 'GrpcHealthCheckStatusAssertionBuilder', 'GrpcAssertion', 'GrpcHealthStatus',
    ],
  },
  {
    title: 'Common to every construct',
    intro: '',
    names: ['Construct', 'ConstructProps'],
  },
];

/** The closed value sets (defined once in `@vigil/schema`), listed with their members. */
const VALUE_TYPES = [
  'Location',
  'RuntimeId',
  'IncidentSeverity',
  'HttpMethod',
  'BodyType',
  'IpFamily',
  'RepeatUnit',
  'OpsgenieRegion',
  'OpsgeniePriority',
  'AssertionSource',
  'AssertionComparison',
  'RetryStrategyType',
  'RetryOnlyOn',
  'DashboardWidth',
  'DashboardRefreshRate',
  'DashboardPaginationRate',
  'StatusPageTheme',
] as const;

/** Methods the loader calls on constructs (bundling, synthesis); users never do. */
const PLUMBING_METHODS = new Set(['scriptEntrypoints', 'setBundledScript', 'synth', 'synthesize', 'build', 'describe']);

/** Loader plumbing exported for the engine, not for users' monitor files. */
const INTERNAL = new Set([
  'CONSTRUCT_BRAND',
  'LATE_CONSTRUCT_KEY',
  'multiStepCheckDefaults',
  'isConstruct',
  'isRef',
  'isExternalRef',
  'Ref',
  'ExternalRef',
  'ExternalRefEdge',
  'ConstructRef',
  'CONFIG_SOURCE_KEY',
  'Project',
  'withProject',
  'tryCurrentProject',
  'SynthesisResult',
  'LOGICAL_ID_PATTERN',
  'isScriptOwner',
  'ScriptField',
  'ScriptBundleRequest',
  'ScriptOwner',
  'parseStackFrame',
  'deriveSourceLocation',
  'isPendingSource',
  'Diagnostic',
  'ResourceKind',
  'ResourceSpec',
  'RefEdge',
  'SourceLocation',
  'RESOURCE_KINDS',
  'DEFAULT_CHECK_MATCH',
  'CheckGroupReference',
  'StatusPageServiceReference',
  'AlertChannelReference',
]);

function docOf(checker: ts.TypeChecker, symbol: ts.Symbol): string {
  return ts
    .displayPartsToString(symbol.getDocumentationComment(checker))
    .replace(/\{@link\s+([^}\s]+)\s*\}/g, '`$1`')
    .trim();
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}

/** A declared type as written in the source (`RetryStrategy | null`), which reads better than the checker's expansion. */
function writtenType(declaration: ts.Declaration | undefined, checker: ts.TypeChecker, symbol: ts.Symbol): string {
  if (declaration && (ts.isPropertySignature(declaration) || ts.isPropertyDeclaration(declaration)) && declaration.type) {
    return declaration.type.getText().replace(/\s+/g, ' ');
  }
  return checker.typeToString(checker.getTypeOfSymbol(symbol));
}

function propsTable(checker: ts.TypeChecker, type: ts.Type, ownOnly: ts.Declaration | undefined): string[] {
  const rows: string[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    const declaration = property.declarations?.[0];
    // Inherited props are listed once, in their own interface's section (e.g. CheckProps).
    if (ownOnly && declaration && declaration.parent !== ownOnly) continue;
    const optional = (property.flags & ts.SymbolFlags.Optional) !== 0;
    rows.push(`| \`${property.name}\` | \`${escapeCell(writtenType(declaration, checker, property))}\` | ${optional ? '' : 'yes'} | ${escapeCell(docOf(checker, property))} |`);
  }
  if (rows.length === 0) return [];
  return ['| prop | type | required | description |', '| --- | --- | --- | --- |', ...rows];
}

function heritage(declaration: ts.InterfaceDeclaration | ts.ClassDeclaration): string[] {
  return (declaration.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText()));
}

function renderInterface(checker: ts.TypeChecker, name: string, declaration: ts.InterfaceDeclaration, symbol: ts.Symbol): string[] {
  const parents = heritage(declaration);
  const lines = [`### \`${name}\``, ''];
  const doc = docOf(checker, symbol);
  if (doc) lines.push(doc, '');
  if (parents.length > 0) lines.push(`Also takes every prop of ${parents.map((parent) => `\`${parent}\``).join(', ')}.`, '');
  const table = propsTable(checker, checker.getDeclaredTypeOfSymbol(symbol), declaration);
  if (table.length > 0) lines.push(...table, '');
  return lines;
}

function signatureOf(checker: ts.TypeChecker, declaration: ts.SignatureDeclaration): string {
  const signature = checker.getSignatureFromDeclaration(declaration);
  return signature ? checker.signatureToString(signature, undefined, ts.TypeFormatFlags.NoTruncation) : '';
}

function hasModifier(node: ts.HasModifiers, kind: ts.SyntaxKind): boolean {
  return ts.getModifiers(node)?.some((modifier) => modifier.kind === kind) ?? false;
}

function isPublic(node: ts.HasModifiers): boolean {
  return !hasModifier(node, ts.SyntaxKind.PrivateKeyword) && !hasModifier(node, ts.SyntaxKind.ProtectedKeyword);
}

function renderClass(checker: ts.TypeChecker, name: string, declaration: ts.ClassDeclaration, symbol: ts.Symbol): string[] {
  const lines = [`### \`${name}\``, ''];
  const doc = docOf(checker, symbol);
  if (doc) lines.push(doc, '');
  const parents = heritage(declaration).filter((parent) => !INTERNAL.has(parent));
  // Statics such as `fromId` are inherited: `EmailAlertChannel.fromId(42)` works like `AlertChannel.fromId(42)`.
  if (parents.length > 0) lines.push(`Extends ${parents.map((parent) => `\`${parent}\``).join(', ')}.`, '');
  const constructor = declaration.members.find(ts.isConstructorDeclaration);
  if (constructor && isPublic(constructor)) lines.push('```ts', `new ${name}${signatureOf(checker, constructor).replace(/\): \w+$/, ')')}`, '```', '');
  const visible = declaration.members.filter(
    (member): member is ts.MethodDeclaration | ts.PropertyDeclaration =>
      (ts.isMethodDeclaration(member) || ts.isPropertyDeclaration(member)) && !ts.isPrivateIdentifier(member.name) && isPublic(member),
  );
  const statics = visible.filter((member) => hasModifier(member, ts.SyntaxKind.StaticKeyword));
  const instanceMethods = visible.filter(
    (member) => ts.isMethodDeclaration(member) && !hasModifier(member, ts.SyntaxKind.StaticKeyword) && !PLUMBING_METHODS.has(member.name.getText()),
  );
  const members = [...statics, ...instanceMethods];
  if (members.length > 0) {
    lines.push('| member | description |', '| --- | --- |');
    for (const member of members) {
      const memberSymbol = checker.getSymbolAtLocation(member.name);
      const isStatic = statics.includes(member);
      const label = ts.isMethodDeclaration(member) ? `${isStatic ? `${name}.` : '.'}${member.name.getText()}${signatureOf(checker, member)}` : `${name}.${member.name.getText()}`;
      lines.push(`| \`${escapeCell(label)}\` | ${memberSymbol ? escapeCell(docOf(checker, memberSymbol)) : ''} |`);
    }
    lines.push('');
  }
  return lines;
}

function renderTypeAlias(checker: ts.TypeChecker, name: string, declaration: ts.TypeAliasDeclaration, symbol: ts.Symbol): string[] {
  const lines = [`### \`${name}\``, ''];
  const doc = docOf(checker, symbol);
  if (doc) lines.push(doc, '');
  lines.push('```ts', `type ${name} = ${declaration.type.getText().replace(/\s+/g, ' ')}`, '```', '');
  return lines;
}

function renderFunction(checker: ts.TypeChecker, name: string, declaration: ts.FunctionDeclaration, symbol: ts.Symbol): string[] {
  const lines = [`### \`${name}\``, ''];
  const doc = docOf(checker, symbol);
  if (doc) lines.push(doc, '');
  lines.push('```ts', `function ${name}${signatureOf(checker, declaration)}`, '```', '');
  return lines;
}

function render(checker: ts.TypeChecker, name: string, symbol: ts.Symbol): string[] {
  const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
  const declaration = target.declarations?.[0];
  if (!declaration) return [];
  if (ts.isClassDeclaration(declaration)) return renderClass(checker, name, declaration, target);
  if (ts.isInterfaceDeclaration(declaration)) return renderInterface(checker, name, declaration, target);
  if (ts.isTypeAliasDeclaration(declaration)) return renderTypeAlias(checker, name, declaration, target);
  if (ts.isFunctionDeclaration(declaration)) return renderFunction(checker, name, declaration, target);
  if (ts.isVariableDeclaration(declaration)) {
    // `export const CheckGroup = CheckGroupV2` and the like.
    const initializer = declaration.initializer?.getText();
    return [`### \`${name}\``, '', ...(docOf(checker, target) ? [docOf(checker, target), ''] : []), ...(initializer ? [`Same as \`${initializer}\`.`, ''] : [])];
  }
  return [];
}

/** The public names `@vigil/constructs` exports (what `@vigil-mon/cli/constructs` re-exports), minus loader plumbing. */
export function publicExports(): { checker: ts.TypeChecker; exports: Map<string, ts.Symbol> } {
  const program = ts.createProgram([ENTRY], {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(ENTRY);
  const moduleSymbol = source && checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`cannot read the exports of ${ENTRY}`);
  const exports = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) if (!INTERNAL.has(symbol.name)) exports.set(symbol.name, symbol);
  return { checker, exports };
}

/** The whole reference as Markdown. Throws on a public export no section claims, so none is forgotten. */
export function renderConstructsReference(): string {
  const { checker, exports } = publicExports();
  const claimed = new Set<string>([...SECTIONS.flatMap((section) => section.names), ...VALUE_TYPES]);
  const forgotten = [...exports.keys()].filter((name) => !claimed.has(name));
  if (forgotten.length > 0) throw new Error(`constructs reference: no section for ${forgotten.join(', ')} (add them to SECTIONS in scripts/constructs-reference.ts)`);

  const lines = [
    '# Constructs reference',
    '',
    '<!-- Generated by `pnpm docs:constructs` (scripts/constructs-reference.ts) from the JSDoc in packages/constructs/src. Do not edit by hand. -->',
    '',
    "Import constructs and builders from `@vigil-mon/cli/constructs` and `defineConfig` from `@vigil-mon/cli`. Props refer to other constructs by object (`group: web`, `alertChannels: [oncall]`), or to resources Vigil does not manage with `X.fromId(id)`. A resource's address is `<kind>.<logicalId>` (kinds: " + RESOURCE_KINDS.map((kind) => '`' + kind + '`').join(', ') + "); logical ids match `[A-Za-z0-9_\\-/#.]+` and are unique per kind.",
    '',
    ...SECTIONS.map((section) => `- [${section.title}](#${section.title.toLowerCase().replace(/[^a-z0-9 ]/g, '').replace(/ /g, '-')})`),
    '- [Value types](#value-types)',
    '',
  ];
  for (const section of SECTIONS) {
    lines.push(`## ${section.title}`, '');
    if (section.intro) lines.push(section.intro, '');
    for (const name of section.names) {
      const symbol = exports.get(name);
      if (!symbol) throw new Error(`constructs reference: ${name} is not exported by @vigil/constructs`);
      lines.push(...render(checker, name, symbol));
    }
  }
  lines.push('## Value types', '', 'The closed sets of values some props take.', '');
  lines.push('| type | values |', '| --- | --- |');
  for (const name of VALUE_TYPES) {
    const symbol = exports.get(name);
    if (!symbol) throw new Error(`constructs reference: ${name} is not exported by @vigil/constructs`);
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const members = checker.typeToString(checker.getDeclaredTypeOfSymbol(target), undefined, ts.TypeFormatFlags.NoTruncation | ts.TypeFormatFlags.InTypeAlias);
    lines.push(`| \`${name}\` | ${escapeCell(members.split(' | ').map((member) => `\`${member}\``).join(', '))} |`);
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(CONSTRUCTS_REFERENCE, renderConstructsReference());
  process.stdout.write(`wrote ${path.relative(process.cwd(), CONSTRUCTS_REFERENCE)}\n`);
}
