import { memo, useEffect, useRef, useState } from 'react';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { LockIcon } from '../../components/icons';
import { STANDARD_LADDER, formatOdds } from '../../shared/odds';
import { selectionsActions } from '../selections/selectionsSlice';
import { isLive, locked, type EventData, type GameData, type MarketData } from './model';

/** How long an up/down flash stays after a price change. */
export const FLASH_MS = 2500;

interface Props {
  game: GameData;
  market: MarketData;
  event: EventData;
  /** Text above the price ('1', 'Over 2.5', a team name ...). */
  label?: string;
}

/** A price: flashes green/red when it moves, shows a lock when suspended, highlights when picked. */
export const PriceButton = memo(function PriceButton({ game, market, event, label }: Props) {
  const dispatch = useAppDispatch();
  const format = useAppSelector((s) => s.sport.oddsFormat);
  const ladder = useAppSelector((s) => s.sport.fractionalLadder);
  const picked = useAppSelector((s) => s.selections.items.some((i) => i.eventId === event.id));
  const previous = useRef(event.price);
  const [flash, setFlash] = useState<'up' | 'down' | null>(null);

  useEffect(() => {
    const before = Number(previous.current);
    const now = Number(event.price);
    previous.current = event.price;
    if (before === now) return;
    setFlash(now > before ? 'up' : 'down');
    const timer = setTimeout(() => setFlash(null), FLASH_MS);
    return () => clearTimeout(timer);
  }, [event.price]);

  const isLocked = locked(game, market, event);
  const classes = ['price', flash && `price--${flash}`, picked && 'is-picked', isLocked && 'is-locked'].filter(Boolean).join(' ');
  const pick = () =>
    dispatch(selectionsActions.toggled({
      gameId: game.id, marketId: market.id, eventId: event.id, price: String(event.price), base: event.base ?? market.base ?? null,
      marketName: market.name, eventName: event.name, team1: game.team1_name, team2: game.team2_name ?? '', isLive: isLive(game), startTs: game.start_ts,
      ewAllowed: Boolean(market.ew_allowed), ewCoeff: market.ew_coeff != null ? Number(market.ew_coeff) : null, spAllowed: Boolean(market.sp_allowed),
    }));

  return (
    <button type="button" className={classes} disabled={isLocked} onClick={pick} aria-pressed={picked}
      data-testid="price" data-event={event.id}>
      {label !== undefined && <span className="price__label">{label}</span>}
      {isLocked ? (
        <LockIcon className="price__lock" width={14} height={14} />
      ) : (
        <span className="price__value" data-testid="price-value">
          {formatOdds(event.price, format, ladder ? STANDARD_LADDER : null)}
          {flash && <span className="price__arrow" aria-hidden="true">{flash === 'up' ? '▲' : '▼'}</span>}
        </span>
      )}
    </button>
  );
});
