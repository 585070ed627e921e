import fc from 'fast-check';
import { parse } from 'jsonc-parser';
import { describe, expect, it } from 'vitest';
import { JsoncDocument, JsoncSyntaxError } from './jsonc-edit.js';

const hook = { type: 'command', command: 'memdir hook Stop', timeout: 10, async: true };

/** Add then remove, and return what adding produced. */
function roundTrip(text: string, add: (doc: JsoncDocument) => void, remove: (doc: JsoncDocument) => void): string {
  const doc = new JsoncDocument(text);
  add(doc);
  const added = doc.text;
  const again = new JsoncDocument(added);
  remove(again);
  expect(again.text).toBe(text);
  return added;
}

describe('adding and removing leave every other byte alone', () => {
  it('an inline array keeps its line; the new element goes inline too', () => {
    const text = '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]\n  }\n}\n';
    const added = roundTrip(
      text,
      (d) => d.append(['hooks', 'Stop'], { hooks: [hook] }),
      (d) => d.remove(['hooks', 'Stop', 1]),
    );
    expect(added).toBe(
      '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}, {"hooks": [{"type": "command", "command": "memdir hook Stop", "timeout": 10, "async": true}]}]\n  }\n}\n',
    );
  });

  it('an element after others on their own lines gets its own line, at their indentation', () => {
    const text = '{\n    "permissions": {\n        "allow": [\n            "Bash(npm test)",\n            "Read"\n        ]\n    }\n}';
    const added = roundTrip(
      text,
      (d) => d.append(['permissions', 'allow'], 'Edit'),
      (d) => d.remove(['permissions', 'allow', 2]),
    );
    expect(added).toBe(
      '{\n    "permissions": {\n        "allow": [\n            "Bash(npm test)",\n            "Read",\n            "Edit"\n        ]\n    }\n}',
    );
  });

  it('comments and trailing commas stay where they are', () => {
    const text =
      '{\n  // my settings\n  "model": "opus", /* the big one */\n  "hooks": {\n    "PreToolUse": [\n      {"matcher": "Bash", "hooks": []},\n    ],\n  },\n}\n';
    const added = roundTrip(
      text,
      (d) => {
        d.set(['hooks'], 'Stop', [{ hooks: [hook] }]);
        d.set([], 'autoDreamEnabled', false);
      },
      (d) => {
        d.remove(['autoDreamEnabled']);
        d.remove(['hooks', 'Stop']);
      },
    );
    expect(added).toContain('// my settings\n  "model": "opus", /* the big one */');
    expect(parse(added, [], { allowTrailingComma: true })).toMatchObject({ autoDreamEnabled: false, hooks: { Stop: [{ hooks: [hook] }] } });
  });

  it('tabs and CRLF are what it writes with, and a byte-order mark is kept', () => {
    const text = '\uFEFF{\r\n\t"model": "opus"\r\n}\r\n';
    const added = roundTrip(
      text,
      (d) => d.set([], 'hooks', { Stop: [{ hooks: [hook] }] }),
      (d) => d.remove(['hooks']),
    );
    expect(added).toBe(
      '\uFEFF{\r\n\t"model": "opus",\r\n\t"hooks": {\r\n\t\t"Stop": [\r\n\t\t\t{\r\n\t\t\t\t"hooks": [\r\n\t\t\t\t\t{\r\n\t\t\t\t\t\t"type": "command",\r\n\t\t\t\t\t\t"command": "memdir hook Stop",\r\n\t\t\t\t\t\t"timeout": 10,\r\n\t\t\t\t\t\t"async": true\r\n\t\t\t\t\t}\r\n\t\t\t\t]\r\n\t\t\t}\r\n\t\t]\r\n\t}\r\n}\r\n',
    );
  });

  it('an empty object or list is opened over lines, and closed back to exactly what it was', () => {
    const text = '{\n  "hooks": {},\n  "list": []\n}\n';
    const added = roundTrip(
      text,
      (d) => {
        d.set(['hooks'], 'Stop', []);
        d.append(['list'], 1);
      },
      (d) => {
        d.remove(['list', 0]);
        d.remove(['hooks', 'Stop']);
      },
    );
    expect(added).toBe('{\n  "hooks": {\n    "Stop": []\n  },\n  "list": [\n    1\n  ]\n}\n');
    // A comment inside an empty object stays, after the new member.
    roundTrip(
      '{"hooks": { /* none yet */ }}',
      (d) => d.set(['hooks'], 'Stop', []),
      (d) => d.remove(['hooks', 'Stop']),
    );
  });

  it('a one-line file stays one line, compact or spaced as it was', () => {
    expect(
      roundTrip(
        '{"model":"opus"}',
        (d) => d.set([], 'autoDreamEnabled', true),
        (d) => d.remove(['autoDreamEnabled']),
      ),
    ).toBe('{"model":"opus","autoDreamEnabled":true}');
    expect(
      roundTrip(
        '{"model": "opus"}',
        (d) => d.set([], 'autoDreamEnabled', true),
        (d) => d.remove(['autoDreamEnabled']),
      ),
    ).toBe('{"model": "opus", "autoDreamEnabled": true}');
  });

  it('removing the first of several members takes its separator with it', () => {
    const doc = new JsoncDocument('{\n  "a": 1,\n  "b": 2\n}');
    doc.remove(['a']);
    expect(doc.text).toBe('{\n  "b": 2\n}');
  });

  it('a member between comments is removed without losing them', () => {
    const doc = new JsoncDocument('{\n  "a": 1, // one\n  "b": 2 // two\n}');
    doc.remove(['b']);
    expect(parse(doc.text)).toEqual({ a: 1 });
    expect(doc.text).toContain('// one');
  });

  it('replaces a value in place', () => {
    const doc = new JsoncDocument('{\n  "autoDreamEnabled": true, // on for now\n  "x": 1\n}');
    doc.set([], 'autoDreamEnabled', false);
    expect(doc.text).toBe('{\n  "autoDreamEnabled": false, // on for now\n  "x": 1\n}');
  });

  it('refuses what is not a JSON object, with the place of the mistake', () => {
    expect(() => new JsoncDocument('{"model": "opus",\n  "x" 1}')).toThrow(/line 2, column 7/);
    expect(() => new JsoncDocument('[1, 2]')).toThrow(JsoncSyntaxError);
    expect(new JsoncDocument('  \n').text).toBe('{}');
    expect(() => new JsoncDocument('{"hooks": []}').set(['hooks'], 'Stop', [])).toThrow(/"hooks" is not an object/);
  });
});

/** Random settings-like values and the many ways people lay them out. */
const key = fc.constantFrom('model', 'hooks', 'env', 'permissions', 'allow', 'x', 'Stop', 'matcher', '名前');
const scalar = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, scalar, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(key, tie('node'), { maxKeys: 3 })),
})).node;
const layout = fc.record({ indent: fc.constantFrom('', '  ', '    ', '\t'), crlf: fc.boolean(), finalNewline: fc.boolean() });

describe('any object, any layout', () => {
  it('setting a new key then removing it gives the same bytes back', () => {
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 5 }), layout, value, (object, style, added) => {
        let text = JSON.stringify(object, null, style.indent);
        if (style.crlf) text = text.replace(/\n/g, '\r\n');
        if (style.finalNewline) text += style.crlf ? '\r\n' : '\n';
        const doc = new JsoncDocument(text);
        doc.set([], 'memdirTestKey', added);
        expect(parse(doc.text)).toEqual({ ...object, memdirTestKey: added });
        doc.remove(['memdirTestKey']);
        expect(doc.text).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
