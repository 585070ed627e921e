/**
 * What extraction accepts of a model's proposed operation: the action words it knows, and a
 * sentence for any other (the model's output is outside data).
 */
import { describe, expect, it } from 'vitest';
import { testingMemory } from './test-support/extract-harness.js';
import { validateOperation } from './validate-operation.js';

const target = { privateFiles: new Set<string>(), teamFiles: new Set<string>(), indexText: '' };

describe('the action of a proposed operation', () => {
  it('reads the words for creating and updating, whatever their case', async () => {
    const added = await validateOperation({ ...testingMemory, action: 'Add' }, target);
    expect(added.ok && added.operation.action).toBe('create');
    const edited = await validateOperation(
      { ...testingMemory, action: 'EDIT', file: 'feedback_real_db.md' },
      { ...target, privateFiles: new Set(['feedback_real_db.md']) },
    );
    expect(edited.operation.action).toBe('update');
  });

  // A key every object has (toString, constructor…) was taken for an action: the operation went on with a function as its action.
  it.each(['delete', 'toString', 'constructor', '__proto__', 'hasOwnProperty'])('refuses "%s" in a sentence, as create or update only', async (action) => {
    const result = await validateOperation({ ...testingMemory, action }, target);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toBe(`"${action.toLowerCase()}" is not an action extraction may take (create or update).`);
    expect(['create', 'update']).toContain(result.operation.action);
  });
});
