import { runSaga, stdChannel, type Saga } from 'redux-saga';
import type { Action } from '@reduxjs/toolkit';

/** Runs a saga outside a store, recording what it dispatches and letting the test dispatch too. */
export function startSaga<S extends Saga>(saga: S, ...args: Parameters<S>) {
  return startSagaWithState(() => ({}), saga, ...args);
}

/** The same, with a state for select effects (it may follow the actions dispatched so far). */
export function startSagaWithState<S extends Saga>(getState: (dispatched: Action[]) => unknown, saga: S, ...args: Parameters<S>) {
  const channel = stdChannel<Action>();
  const dispatched: Action[] = [];
  const task = runSaga(
    {
      channel,
      dispatch: (action: Action) => {
        dispatched.push(action);
        channel.put(action);
      },
      getState: () => getState(dispatched),
    },
    saga,
    ...args,
  );
  return {
    task,
    dispatched,
    types: () => dispatched.map((a) => a.type),
    dispatch: (action: Action) => channel.put(action),
  };
}
