import { configureStore, type Middleware } from '@reduxjs/toolkit';
import createSagaMiddleware from 'redux-saga';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RealtimeEvent, RealtimeSocket } from '../../api/realtime';
import { rootReducer } from '../../app/store';
import { balanceActions } from '../balance/balanceSlice';
import { sessionActions } from '../session/sessionSlice';
import { tipText } from './WinningTips';
import { historyActions } from '../history/historySlice';
import { startSaga } from '../../test/runSaga';
import { realtimeActions } from './realtimeSlice';
import { REALTIME_PING_MS, RECONNECT_STEP_MS, TIP_MS, connectLoop, onBetNotified, type RealtimeDeps } from './sagas';

class FakeSocket implements RealtimeSocket {
  sent: Array<Record<string, unknown>> = [];
  private listeners = new Set<(e: RealtimeEvent) => void>();
  send(m: Record<string, unknown>) {
    this.sent.push(m);
  }
  listen(l: (e: RealtimeEvent) => void) {
    this.listeners.add(l);
    return () => void this.listeners.delete(l);
  }
  receive(data: Record<string, unknown>) {
    [...this.listeners].forEach((l) => l({ type: 'message', data }));
  }
  close() {
    [...this.listeners].forEach((l) => l({ type: 'closed' }));
  }
  types = () => this.sent.map((m) => m.type);
}

const AUTH = { auth_token: 'tok', user_id: '7', username: 'demo', expires: Date.now() + 600_000, never_expires: false };

function start() {
  const sockets: FakeSocket[] = [];
  const deps: RealtimeDeps = {
    open: vi.fn(async () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    }),
    bind: vi.fn(async () => null),
  };
  const actions: string[] = [];
  const recorder: Middleware = () => (next) => (action) => (actions.push((action as { type: string }).type), next(action));
  const saga = createSagaMiddleware();
  const store = configureStore({
    reducer: rootReducer,
    middleware: (d) => d({ thunk: false, serializableCheck: false, immutableCheck: false }).concat(saga)
      .concat(recorder),
  });
  const task = saga.run(connectLoop, deps);
  return { store, deps, sockets, actions, task };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('realtime saga', () => {
  it('sends init on open and p every 10 s', async () => {
    const { sockets, store, task } = start();
    await vi.advanceTimersByTimeAsync(0);
    expect(sockets[0]!.types()).toEqual(['init']);
    expect(store.getState().realtime.connected).toBe(true);
    await vi.advanceTimersByTimeAsync(REALTIME_PING_MS - 1);
    expect(sockets[0]!.types()).toEqual(['init']);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets[0]!.types()).toEqual(['init', 'p']);
    await vi.advanceTimersByTimeAsync(REALTIME_PING_MS * 2);
    expect(sockets[0]!.types()).toEqual(['init', 'p', 'p', 'p']);
    task.cancel();
  });

  it('binds the client_id after login (and not before), once per id', async () => {
    const { sockets, store, deps, task } = start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.receive({ type: 'init', client_id: 'C1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().realtime.clientId).toBe('C1');
    expect(deps.bind).not.toHaveBeenCalled();
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(deps.bind).toHaveBeenCalledWith('C1');
    expect(store.getState().realtime.boundId).toBe('C1');
    sockets[0]!.receive({ type: 'i', client_id: 'C1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(deps.bind).toHaveBeenCalledTimes(1);
    task.cancel();
  });

  it('binds at once when the member is in before the id arrives, and again after a reconnect', async () => {
    const { sockets, store, deps, task } = start();
    store.dispatch(sessionActions.loggedIn({ auth: AUTH, session: 's' }));
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.receive({ type: 'init', client_id: 'C1' });
    await vi.advanceTimersByTimeAsync(0);
    expect(deps.bind).toHaveBeenLastCalledWith('C1');
    sockets[0]!.close();
    await vi.advanceTimersByTimeAsync(RECONNECT_STEP_MS);
    expect(sockets).toHaveLength(2);
    expect(sockets[1]!.types()).toEqual(['init']);
    sockets[1]!.receive({ type: 'init', client_id: 'C2' });
    await vi.advanceTimersByTimeAsync(0);
    expect(deps.bind).toHaveBeenLastCalledWith('C2');
    task.cancel();
  });

  it('shows winning tips; a 1004 win refreshes the balance; tips go after a while', async () => {
    const { sockets, store, actions, task } = start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.receive({ type: 1004, data: { subject: 'Win', id: 77, money: '25.00', bonus: '0' }, client_id: 'C1' });
    sockets[0]!.receive({ type: 999, data: {} });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().realtime.tips).toMatchObject([{ type: 1004, data: { id: 77, money: '25.00' } }]);
    expect(actions.filter((a) => a === balanceActions.refreshRequested.type)).toHaveLength(1);
    const t = (k: string, ...a: Array<string | number>) => `${k}(${a.join(',')})`;
    expect(tipText(store.getState().realtime.tips[0]!, t)).toEqual({ title: 'Win', body: 'tips.win(77,25.00)' });
    sockets[0]!.receive({ type: 1002, data: { content: 'Hello' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().realtime.tips).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(TIP_MS);
    expect(store.getState().realtime.tips).toEqual([]);
    task.cancel();
  });

  it('1002 tips about a bet: counter_offer and cashout show a tip; support answers become notices; all announce the bet', async () => {
    const { sockets, store, actions, task } = start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.receive({ type: 1002, data: { subject: 'counter_offer', id: 77, content: 'We can offer 50.00 at 2.10', time: 1 } });
    await vi.advanceTimersByTimeAsync(0);
    expect(store.getState().realtime.tips).toMatchObject([{ type: 1002, data: { subject: 'counter_offer', id: 77 } }]);
    const t = (k: string, ...a: Array<string | number>) => `${k}(${a.join(',')})`;
    // the language file's body for the subject, in the member's language ...
    expect(tipText(store.getState().realtime.tips[0]!, t)).toEqual({ title: 'tips.subject.counter_offer()', body: 'tips.body.counter_offer(77)' });
    // ... and the server's text where the language file has none (i18next answers the key)
    const without = (k: string, ...a: Array<string | number>) => (k.startsWith('tips.body.') ? k : t(k, ...a));
    expect(tipText(store.getState().realtime.tips[0]!, without)).toEqual({ title: 'tips.subject.counter_offer()', body: 'We can offer 50.00 at 2.10' });
    sockets[0]!.receive({ type: 1002, data: { subject: 'super_bet_accepted', id: 78, content: 'Accepted' } });
    sockets[0]!.receive({ type: 1002, data: { subject: 'cashout', id: 79, money: '12.30' } });
    await vi.advanceTimersByTimeAsync(0);
    const tips = store.getState().realtime.tips;
    expect(tips.map((x) => x.data.subject)).toEqual(['counter_offer', 'cashout']);
    expect(tipText(tips[1]!, t)).toEqual({ title: 'tips.subject.cashout()', body: 'tips.cashout(79,12.30)' });
    expect(actions.filter((a) => a === realtimeActions.betNotified.type)).toHaveLength(3);
    sockets[0]!.receive({ type: 1002, data: { subject: 'Maintenance', content: 'Tonight' } });
    await vi.advanceTimersByTimeAsync(0);
    expect(actions.filter((a) => a === realtimeActions.betNotified.type)).toHaveLength(3);
    task.cancel();
  });

  it("1003 activity and 1005 'Warm tip' pop over with their own titles and move the inbox's unread count", async () => {
    const { sockets, store, actions, task } = start();
    await vi.advanceTimersByTimeAsync(0);
    sockets[0]!.receive({ type: 1005, data: { subject: 'Weekly tip', content: 'Check the live section' } });
    sockets[0]!.receive({ type: 1003, data: { subject: 'Reward paid', content: 'Your VIP rebate of 3.00 CNY has been paid.' } });
    await vi.advanceTimersByTimeAsync(0);
    const t = (k: string, ...a: Array<string | number>) => `${k}(${a.join(',')})`;
    const [warm, activity] = store.getState().realtime.tips;
    expect(tipText(warm!, t)).toEqual({ title: 'tips.title.1005()', body: 'Check the live section' });
    expect(tipText(activity!, t)).toEqual({ title: 'tips.title.1003()', body: 'Your VIP rebate of 3.00 CNY has been paid.' });
    expect(actions.filter((a) => a === sessionActions.profileRequested.type)).toHaveLength(2);
    task.cancel();
  });

  it('bet news reloads the history; money news (not a counter offer) the balance too', async () => {
    const offer = startSaga(onBetNotified, realtimeActions.betNotified({ subject: 'counter_offer', id: '77' }));
    await offer.task.toPromise();
    expect(offer.types()).toEqual([historyActions.changed.type]);
    const cashout = startSaga(onBetNotified, realtimeActions.betNotified({ subject: 'cashout', id: '77', money: '3.00' }));
    await cashout.task.toPromise();
    expect(cashout.types()).toEqual([historyActions.changed.type, balanceActions.refreshRequested.type]);
  });
});
