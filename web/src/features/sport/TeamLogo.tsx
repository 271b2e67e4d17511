import { useState } from 'react';
import { teamLogoUrl } from './model';

const DEFAULTS = { home: '/images/team-home.svg', away: '/images/team-away.svg' };

/** The team logo by game id, or the shipped default shield when the image is missing. */
export function TeamLogo({ gameId, side, size = 50, className = 'team-logo' }: { gameId: number; side: 'home' | 'away'; size?: number; className?: string }) {
  const [failed, setFailed] = useState(false);
  return (
    <img className={className} src={failed ? DEFAULTS[side] : teamLogoUrl(gameId, size)} alt="" aria-hidden="true"
      loading="lazy" onError={() => setFailed(true)} />
  );
}
