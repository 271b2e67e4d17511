import { configureStore } from '@reduxjs/toolkit';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { Suspense, useState, type ReactNode } from 'react';
import { Provider } from 'react-redux';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { lazyRetry } from '../../app/lazyRetry';
import { rootReducer } from '../../app/store';
import { readSkin } from '../../test/skins';
import { i18nActions } from '../i18n/i18nSlice';
import { ChunkBoundary } from './ChunkBoundary';

const eng = readSkin('languages/eng.json');
const Picks = () => <p>picks</p>;

/** A factory standing in for `import('./X').then((m) => ({ default: m.X }))` that rejects `failures` times first. */
function flakyImport(failures: number) {
  let calls = 0;
  const load = vi.fn(() => (++calls <= failures
    ? Promise.reject(new TypeError('Failed to fetch dynamically imported module'))
    : Promise.resolve({ default: Picks })));
  return load;
}

/** A component that throws while `broken.now` holds. */
function breakable() {
  const broken = { now: true };
  const Sheet = () => {
    if (broken.now) throw new Error('boom');
    return <p>the sheet</p>;
  };
  return { broken, Sheet };
}

/** `ui` with the English language file loaded (the error box is translated). */
function renderWithStrings(ui: ReactNode) {
  const store = configureStore({ reducer: rootReducer, middleware: (d) => d({ thunk: false, serializableCheck: false }) });
  store.dispatch(i18nActions.loaded({ lang: 'eng', strings: eng }));
  return render(ui, { wrapper: ({ children }) => <Provider store={store}>{children}</Provider> });
}

function renderRegion(load: ReturnType<typeof flakyImport>, onClose?: () => void) {
  const Region = lazyRetry(load);
  const region = <Suspense fallback={<div aria-busy="true" />}><Region /></Suspense>;
  renderWithStrings(
    <>
      <header>the header</header>
      {onClose ? <ChunkBoundary overlay onClose={onClose}>{region}</ChunkBoundary> : <ChunkBoundary>{region}</ChunkBoundary>}
    </>,
  );
}

/** Runs the fake clock `ms` on, drawing what settles (lazyRetry tries again after 300 ms, then 1 s). */
const elapse = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms));
const silenceErrors = () => vi.spyOn(console, 'error').mockImplementation(() => {}); // React and the boundary report the caught error

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('lazy chunks that fail to load (lazyRetry, ChunkBoundary)', () => {
  it('an import that fails once then succeeds renders the component', async () => {
    const load = flakyImport(1);
    renderRegion(load);
    await elapse(299);
    expect(screen.queryByText('picks')).not.toBeInTheDocument();
    await elapse(1);
    expect(screen.getByText('picks')).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });

  it('an import that always fails shows the message and a reload button, and the rest of the app stays mounted', async () => {
    silenceErrors();
    const reload = vi.fn();
    vi.stubGlobal('location', { ...window.location, reload });
    const load = flakyImport(Infinity);
    renderRegion(load);
    await elapse(1299);
    expect(load).toHaveBeenCalledTimes(2);
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    await elapse(1);
    const error = screen.getByTestId('chunk-error');
    expect(load).toHaveBeenCalledTimes(3);
    expect(error).toHaveTextContent(eng['casino.error']!);
    expect(eng['casino.error']).toBe('Sorry something went wrong please try again later');
    expect(screen.getByText('the header')).toBeInTheDocument();
    // a page region has nothing to close: the page around it goes on
    expect(within(error).queryByRole('button', { name: eng['common.close'] })).not.toBeInTheDocument();
    fireEvent.click(within(error).getByRole('button', { name: eng['boot.error.retry'] }));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it('a region that covers the page (a popup) shows the message as a popup, with a close button', async () => {
    silenceErrors();
    const onClose = vi.fn();
    renderRegion(flakyImport(Infinity), onClose);
    await elapse(1300);
    const error = screen.getByTestId('chunk-error');
    expect(error).toHaveClass('popup');
    expect(error.parentElement).toHaveClass('overlay');
    expect(within(error).getByRole('button', { name: eng['boot.error.retry'] })).toBeInTheDocument();
    fireEvent.click(within(error).getByRole('button', { name: eng['common.close'] }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('a region whose chunk failed to load imports again once closed and opened again', async () => {
    silenceErrors();
    const load = flakyImport(3); // the first attempt's three tries fail
    const Region = lazyRetry(load);
    function Page() {
      const [open, setOpen] = useState(true);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>open</button>
          {open && (
            <ChunkBoundary overlay onClose={() => setOpen(false)}>
              <Suspense fallback={<div aria-busy="true" />}><Region /></Suspense>
            </ChunkBoundary>
          )}
        </>
      );
    }
    renderWithStrings(<Page />);
    await elapse(1300);
    expect(load).toHaveBeenCalledTimes(3);
    fireEvent.click(within(screen.getByTestId('chunk-error')).getByRole('button', { name: eng['common.close'] }));
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'open' }));
    await elapse(0);
    expect(load).toHaveBeenCalledTimes(4);
    expect(screen.getByText('picks')).toBeInTheDocument();
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });

  it('a failed overlay region can be closed and opened again', () => {
    silenceErrors();
    const { broken, Sheet } = breakable();
    function Page() {
      const [open, setOpen] = useState(true);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>open</button>
          {open && <ChunkBoundary overlay onClose={() => setOpen(false)}><Sheet /></ChunkBoundary>}
        </>
      );
    }
    renderWithStrings(<Page />);
    fireEvent.click(within(screen.getByTestId('chunk-error')).getByRole('button', { name: eng['common.close'] }));
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    broken.now = false;
    fireEvent.click(screen.getByRole('button', { name: 'open' }));
    expect(screen.getByText('the sheet')).toBeInTheDocument();
  });

  it('closing a failed overlay region resets the boundary, even where the boundary stays mounted', () => {
    silenceErrors();
    const { broken, Sheet } = breakable();
    const onClose = vi.fn(() => {
      broken.now = false;
    });
    renderWithStrings(<ChunkBoundary overlay onClose={onClose}><Sheet /></ChunkBoundary>);
    fireEvent.click(screen.getByRole('button', { name: eng['common.close'] }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    expect(screen.getByText('the sheet')).toBeInTheDocument();
  });

  it('an error is gone once the reset key (the route) changes, and stays while it does not', () => {
    silenceErrors();
    const { broken, Sheet } = breakable();
    const page = (key: string) => <ChunkBoundary resetKey={key}><Sheet /></ChunkBoundary>;
    const { rerender } = renderWithStrings(page('/news/1'));
    expect(screen.getByTestId('chunk-error')).toBeInTheDocument();
    broken.now = false;
    rerender(page('/news/1'));
    expect(screen.getByTestId('chunk-error')).toBeInTheDocument();
    rerender(page('/news/2'));
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
    expect(screen.getByText('the sheet')).toBeInTheDocument();
  });

  it('a silent region draws nothing when it fails, and the rest stays', () => {
    silenceErrors();
    const { Sheet } = breakable();
    render(<><header>the header</header><ChunkBoundary silent><Sheet /></ChunkBoundary></>);
    expect(screen.getByText('the header')).toBeInTheDocument();
    expect(screen.queryByTestId('chunk-error')).not.toBeInTheDocument();
  });

  it('a caught error is logged even in a silent region, with the component stack', () => {
    const log = silenceErrors();
    const Broken = () => {
      throw new Error('boom');
    };
    render(<ChunkBoundary silent><Broken /></ChunkBoundary>);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/^\[ChunkBoundary\]/), expect.objectContaining({ message: 'boom' }), expect.stringContaining('Broken'));
    log.mockClear();
    renderWithStrings(<ChunkBoundary><Broken /></ChunkBoundary>);
    expect(log).toHaveBeenCalledWith(expect.stringMatching(/^\[ChunkBoundary\]/), expect.objectContaining({ message: 'boom' }), expect.stringContaining('Broken'));
  });
});
