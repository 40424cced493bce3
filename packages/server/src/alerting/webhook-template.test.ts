import { describe, expect, it } from 'vitest';
import { renderWebhookTemplate, TemplateError, type TemplateValue } from './webhook-template.js';

const variables: Record<string, TemplateValue> = {
  ALERT_TYPE: 'ALERT_FAILURE',
  CHECK_NAME: 'Shop "API"',
  GROUP_NAME: 'Payments',
  TAGS: ['shop', 'api'],
  RUN_LOCATION: 'eu-west-1',
  CHECK_ERROR_MESSAGE: '',
};

const render = (template: string, overrides: Record<string, TemplateValue> = {}) => renderWebhookTemplate(template, { ...variables, ...overrides });

describe('webhook templates render Handlebars blocks', () => {
  it.each([
    ['if with a value', '{{#if GROUP_NAME}}group {{GROUP_NAME}}{{else}}no group{{/if}}', {}, 'group Payments'],
    ['if with an empty value takes else', '{{#if GROUP_NAME}}group{{else}}no group{{/if}}', { GROUP_NAME: '' }, 'no group'],
    ['if with an unknown variable takes else', '{{#if AI_ANALYSIS_CLASSIFICATION}}ai{{else}}none{{/if}}', {}, 'none'],
    ['unless', '{{#unless CHECK_ERROR_MESSAGE}}no error{{/unless}}', {}, 'no error'],
    ['each over tags, unless @last between them', 'Tags: {{#each TAGS}}{{this}}{{#unless @last}}, {{/unless}}{{/each}}.', {}, 'Tags: shop, api.'],
    ['each with @index', '{{#each TAGS}}[{{@index}}:{{this}}]{{/each}}', {}, '[0:shop][1:api]'],
    ['each over no tags takes else', '{{#each TAGS}}{{this}}{{else}}untagged{{/each}}', { TAGS: [] }, 'untagged'],
    ['if over no tags takes else', '{{#if TAGS}}tagged{{else}}untagged{{/if}}', { TAGS: [] }, 'untagged'],
    ['TAGS as a value is comma-separated', '{{TAGS}}', {}, 'shop, api'],
    ['lookup', '{{lookup TAGS 1}}', {}, 'api'],
    ['with', '{{#with GROUP_NAME}}in {{this}}{{/with}}', {}, 'in Payments'],
    ['contains (the hosted service helper) as a block', '{{#contains ALERT_TYPE "RECOVERY"}}resolved{{else}}firing{{/contains}}', {}, 'firing'],
    ['contains on a recovery', '{{#contains ALERT_TYPE "RECOVERY"}}resolved{{else}}firing{{/contains}}', { ALERT_TYPE: 'ALERT_RECOVERY' }, 'resolved'],
    ['contains over a list', '{{#if (contains TAGS "api")}}api{{/if}}', {}, 'api'],
    ['an unknown variable is empty', '[{{NOT_A_VARIABLE}}]', {}, '[]'],
    ['triple braces', '{{{ CHECK_NAME }}}', {}, 'Shop \\"API\\"'],
    ['log writes nothing', '{{log "hello"}}ok', {}, 'ok'],
  ])('%s', (_name, template, overrides, expected) => {
    expect(render(template, overrides)).toBe(expected);
  });

  it.each([
    ['quotes and backslashes', 'Shop "API" \\ v2'],
    ['newlines and tabs', 'line one\nline two\ttabbed\r\n'],
    ['text that looks like a template', '{{CHECK_ID}} {{#if x}}{{/if}} }}{{'],
    ['control characters and unicode', '\u0001 ✓ \u2028'],
  ])('inserts values JSON-safe: %s', (_name, value) => {
    const template = '{"name":"{{CHECK_NAME}}","raw":"{{{CHECK_NAME}}}","tags":[{{#each TAGS}}"{{this}}"{{#unless @last}},{{/unless}}{{/each}}]}';
    expect(JSON.parse(render(template, { CHECK_NAME: value, TAGS: [value, 'b'] }))).toEqual({ name: value, raw: value, tags: [value, 'b'] });
  });

  it('draws {{$UUID}} and {{$RANDOM_NUMBER}} like the hosted service', () => {
    const [uuid, random, legacy] = render('{{$UUID}} {{$RANDOM_NUMBER}} {{RANDOM_NUMBER}}').split(' ');
    expect(uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (const number of [random, legacy]) expect(Number(number)).toSatisfy((value: number) => Number.isInteger(value) && value >= 0 && value <= 1000);
  });

  it.each([
    ['a prototype property', '[{{constructor}}]'],
    ['a prototype property of a value', '[{{CHECK_NAME.constructor}}][{{TAGS.constructor.name}}]'],
    ['__proto__', '[{{__proto__}}][{{lookup TAGS "__proto__"}}]'],
  ])('never reaches %s', (_name, template) => {
    expect(render(template)).toMatch(/^(\[\])+$/);
  });

  it('renders the Checkly CLI Microsoft Teams card (blocks across lines) to valid JSON', () => {
    const card = `{
  "type": "message",
  "attachments": [{ "contentType": "application/vnd.microsoft.card.adaptive", "content": { "type": "AdaptiveCard", "body": [
    { "type": "TextBlock", "text": "{{ALERT_TITLE}}" },
    {{#if AI_ANALYSIS_CLASSIFICATION}}
    { "type": "TextBlock", "text": "{{AI_ANALYSIS_CLASSIFICATION}}" },
    {{/if}}
    {{#if GROUP_NAME}}
    { "type": "TextBlock", "text": "Group: {{GROUP_NAME}}" },
    {{/if}}
    { "type": "TextBlock", "text": "Tags: {{#each TAGS}} {{this}} {{#unless @last}},{{/unless}} {{/each}}" }
  ] } }]
}`;
    for (const GROUP_NAME of ['Payments', '']) {
      const body = JSON.parse(render(card, { ALERT_TITLE: "Check 'Shop \"API\"' has failed", GROUP_NAME }));
      expect(body.attachments[0].content.body.map((block: { text: string }) => block.text)).toEqual([
        `Check 'Shop "API"' has failed`,
        ...(GROUP_NAME ? ['Group: Payments'] : []),
        'Tags:  shop ,  api  ',
      ]);
    }
  });
});

describe('a webhook template that cannot be rendered', () => {
  it.each([
    ['an unclosed block', '{\n  "a": "{{#if GROUP_NAME}}yes"\n}', "the webhook template cannot be rendered: line 3: Expecting 'OPEN_INVERSE_CHAIN', 'INVERSE', 'OPEN_ENDBLOCK', got 'EOF', near `f GROUP_NAME}}yes\"}` (a {{#block}} is never closed)"],
    ['a block closed by another name', '{{#if GROUP_NAME}}\n{{/each}}', "the webhook template cannot be rendered: if doesn't match each (line 1, column 4)"],
    ['a helper the service does not have', '{\n"when": "{{moment "YYYY"}}"\n}', 'the webhook template cannot be rendered: You specified knownHelpersOnly, but used the unknown helper moment (line 2, column 10)'],
    ['a partial', 'one\n  {{> footer}}', 'the webhook template cannot be rendered: partials ({{> name}}) are not supported in webhook templates (line 2, column 3)'],
    ['a decorator', '{{#*inline "x"}}y{{/inline}}', 'the webhook template cannot be rendered: decorator blocks ({{#* name}}) are not supported in webhook templates (line 1, column 1)'],
    ['a block helper without its argument', 'a\n{{#if}}x{{/if}}', 'the webhook template cannot be rendered: #if requires exactly one argument (line 2, column 1)'],
    ['contains without the text to look for', '{{#contains ALERT_TYPE}}x{{/contains}}', 'the webhook template cannot be rendered: contains needs a value and the text to look for: {{#contains ALERT_TYPE "RECOVERY"}}…{{/contains}} (line 1, column 1)'],
    ['a block closed right before a JSON brace', '{"a": 1{{#if GROUP_NAME}}, "g": "{{GROUP_NAME}}"{{/if}}}', "the webhook template cannot be rendered: line 1: Expecting 'CLOSE', got 'CLOSE_UNESCAPED', near `{{GROUP_NAME}}\"{{/if}}}` (`}}}` closes a {{{triple}}}: put a space between `}}` and a JSON `}`)"],
    ['an unclosed mustache', '{"a": "{{CHECK_NAME}"}', "the webhook template cannot be rendered: line 1: Expecting 'CLOSE_RAW_BLOCK', 'CLOSE', 'CLOSE_UNESCAPED', 'OPEN_SEXPR', 'CLOSE_SEXPR', 'ID', 'OPEN_BLOCK_PARAMS', 'STRING', 'NUMBER', 'BOOLEAN', 'UNDEFINED', 'NULL', 'DATA', 'SEP', got 'INVALID', near `{\"a\": \"{{CHECK_NAME}\"}`"],
  ])('%s is a TemplateError naming the problem and its line', (_name, template, message) => {
    expect(() => render(template)).toThrow(TemplateError);
    expect(() => render(template)).toThrow(message);
    // The same again from the compile cache.
    expect(() => render(template)).toThrow(message);
  });
});
