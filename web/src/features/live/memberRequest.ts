/**
 * A Swarm command on behalf of the logged-in member (do_bet, the cash-out commands,
 * super_bet_answer): a session that lost its login (code 12 while a member) gets
 * restore_login and one retry.
 */
import { call, select } from 'redux-saga/effects';
import type { SagaIterator } from 'redux-saga';
import { NOT_LOGGED_IN } from '../../api/errors';
import { SwarmError } from '../../api/swarm';
import { selectAuth } from '../session/selectors';
import { swarmRequest } from './connection';

export type SwarmRequest = <T>(command: string, params: Record<string, unknown>) => Promise<T>;

export interface MemberDeps {
  request: SwarmRequest;
}
export const defaultMemberDeps: MemberDeps = { request: swarmRequest };

export function* memberRequest<T>(request: SwarmRequest, command: string, params: Record<string, unknown>): SagaIterator<T> {
  try {
    return (yield call(request, command, params)) as T;
  } catch (err) {
    const auth: ReturnType<typeof selectAuth> = yield select(selectAuth);
    if (!(err instanceof SwarmError && err.code === NOT_LOGGED_IN && auth)) throw err;
    yield call(request, 'restore_login', { user_id: auth.user_id, auth_token: auth.auth_token });
    return (yield call(request, command, params)) as T;
  }
}

/** `data.result` of a betting command: "Ok", "Fail", "NotAvailable" or a catalogue code. */
export const resultIs = (result: unknown, name: string) => String(result).toLowerCase() === name.toLowerCase();
