import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// jsdom lays nothing out, so these read the stylesheet: the rules that keep the back office
// usable on a 390px phone (tests run from web/).
const DIR = resolve(process.cwd(), 'src/features/backoffice');
const css = readFileSync(resolve(DIR, 'backoffice.css'), 'utf8');

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

  it('a panel\'s children may shrink below their content, so a nested table scroller scrolls instead of widening the page', () => {
    expect(rule('.bo-panel > *')).toMatch(/min-width:\s*0/);
  });

  it('the section links wrap on a phone (an admin has six)', () => {
    const phone = css.slice(css.indexOf('@media (max-width: 760px)'));
    expect(/\.bo-bar__nav\s*\{([^}]*)\}/.exec(phone)?.[1]).toMatch(/flex-wrap:\s*wrap/);
  });

  it('every table sits in a horizontal scroller (bo-scroll, or the content desks\' scrolling list)', () => {
    // narrow enough for a phone as they are: the three columns of a bet's selections
    const narrow = new Set(['bo-bet-selections']);
    const seen: string[] = [];
    for (const file of readdirSync(DIR).filter((f) => f.endsWith('.tsx') && !f.includes('.test.'))) {
      const source = readFileSync(resolve(DIR, file), 'utf8');
      for (const table of source.matchAll(/<table className="bo-table"[^>]*>/g)) {
        const name = /data-testid="([^"]+)"/.exec(table[0])?.[1] ?? `${file}@${table.index}`;
        seen.push(name);
        if (narrow.has(name)) continue;
        // the innermost <div> still open where the table starts
        let depth = 0;
        let parent = '';
        const tags = Array.from(source.slice(0, table.index).matchAll(/<div\b[^>]*?(\/?)>|<\/div>/g)).reverse();
        for (const tag of tags) {
          if (tag[0] === '</div>') depth += 1;
          else if (tag[1] === '/') continue;
          else if (depth === 0) { parent = tag[0]; break; }
          else depth -= 1;
        }
        expect(parent, `${file}: ${name}`).toMatch(/className="(bo-scroll|bo-cdesk__list)"/);
      }
    }
    expect(seen).toEqual(expect.arrayContaining(['bo-season-claims', 'bo-season-prizes', 'bo-season-task-defs', 'bo-content-audit']));
  });
});
