/**
 * The seasons desk's task definition form (docs/seasons.md "Task texts per language"):
 * a season task as the desk edits it, its validation (the bounds `domain::season::TaskDef`
 * checks; the desk requires taskdesc and bonusname in all three languages, as the promo
 * desk does) and the body POST /api/backoffice/season/tasks takes. An older definition's
 * single string reads as the same text in each language. Pure functions: tested in
 * seasonsDesk.test.ts.
 */
import { checkAmount, checkInt, checkTexts, textsOf, type Errors, type Texts } from './promoDesk';

/** Task types (domain::season::task_type): 1 bet days .. 8 active days. */
export const SEASON_TASK_TYPES = [1, 2, 3, 4, 5, 6, 7, 8] as const;

export interface SeasonTaskDef {
  id: number; tasktype: number; taskvalue: string; taskdesc: Texts | string; bonusname: Texts | string;
  cash: string; score: number; bonuscnt: number; needcheck: boolean;
}
export interface SeasonTaskForm {
  id: string; tasktype: string; taskvalue: string; cash: string; needcheck: boolean;
  taskdesc: Texts; bonusname: Texts; score: number; bonuscnt: number;
}

const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** The form of `def`, or of a new task with the next free id. */
export function seasonTaskForm(def: SeasonTaskDef | null, existing: SeasonTaskDef[] = []): SeasonTaskForm {
  const next = existing.reduce((m, d) => Math.max(m, d.id), 0) + 1;
  return {
    id: def ? String(def.id) : String(next),
    tasktype: def ? String(def.tasktype) : '1',
    taskvalue: str(def?.taskvalue),
    cash: str(def?.cash),
    needcheck: def?.needcheck ?? false,
    taskdesc: textsOf(def?.taskdesc ?? ''),
    bonusname: textsOf(def?.bonusname ?? ''),
    score: def?.score ?? 0,
    bonuscnt: def?.bonuscnt ?? 1,
  };
}

export function validateSeasonTask(f: SeasonTaskForm, existing: SeasonTaskDef[] = [], isNew = false): Errors {
  const errors: Errors = {};
  checkInt(errors, 'id', f.id, 1, 1_000_000);
  if (!errors.id && isNew && existing.some((d) => d.id === Number(f.id))) errors.id = { key: 'bo.promo.v.id_taken' };
  if (!(SEASON_TASK_TYPES as readonly number[]).includes(Number(f.tasktype))) errors.tasktype = { key: 'validation.required' };
  checkAmount(errors, 'taskvalue', f.taskvalue, 1_000_000_000);
  checkAmount(errors, 'cash', f.cash, 1_000_000);
  checkTexts(errors, 'taskdesc', f.taskdesc, 200);
  checkTexts(errors, 'bonusname', f.bonusname, 100);
  return errors;
}

export function seasonTaskBody(f: SeasonTaskForm): SeasonTaskDef {
  const trim = (t: Texts): Texts => ({ zhh: t.zhh.trim(), eng: t.eng.trim(), tha: t.tha.trim() });
  return {
    id: Number(f.id), tasktype: Number(f.tasktype), taskvalue: f.taskvalue.trim(), cash: f.cash.trim(),
    taskdesc: trim(f.taskdesc), bonusname: trim(f.bonusname), score: f.score, bonuscnt: f.bonuscnt, needcheck: f.needcheck,
  };
}
