import { describe, expect, it } from 'vitest';
import { addUnderHeading } from '../../src/reflect/apply-operations.js';

describe('a fact applied twice (a reflect run again after a crash)', () => {
  it('is under its heading once', () => {
    const text = '# Rain\n\n## Likes\n- Oolong tea.\n\n## Home\n- Shanghai.\n';
    const once = addUnderHeading(text, 'Likes', '- Climbing.');
    expect(once).toBe('# Rain\n\n## Likes\n- Oolong tea.\n- Climbing.\n\n## Home\n- Shanghai.\n');
    expect(addUnderHeading(once, 'Likes', '- Climbing.')).toBe(once);
  });

  it('the same line under another heading is still added', () => {
    const text = '# Rain\n\n## Likes\n- Climbing.\n\n## Dislikes\n';
    expect(addUnderHeading(text, 'Dislikes', '- Climbing.')).toBe(
      '# Rain\n\n## Likes\n- Climbing.\n\n## Dislikes\n- Climbing.\n',
    );
  });
});
