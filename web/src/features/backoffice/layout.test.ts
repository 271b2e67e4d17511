import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// jsdom lays nothing out, so these read the stylesheet: the rules that keep the back office
// usable on a 390px phone (tests run from web/).
const css = readFileSync(resolve(process.cwd(), 'src/features/backoffice/backoffice.css'), 'utf8');

/** The declarations of the first rule whose selector list is exactly `selector`. */
function rule(selector: string): string {
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`(?:^|[}\\n])\\s*${escaped}\\s*\\{([^}]*)\\}`).exec(css);
  if (!found) throw new Error(`no rule for ${selector}`);
  return found[1]!;
}

describe('back office layout on a narrow screen', () => {
  it('chip rows (the seasons desk tabs among them) wrap instead of overflowing', () => {
    expect(rule('.bo-chips')).toMatch(/flex-wrap:\s*wrap/);
  });
});
