/** The lazily loaded sport screens (one chunk with their shared parts). */
export { SportPage } from './SportPage';
export { GamePage } from './GamePage';
export { ScoresPage } from './ScoresPage';
export { HomeSport } from './HomeSport';
export { SpecialEventPage } from './SpecialEventPage';
