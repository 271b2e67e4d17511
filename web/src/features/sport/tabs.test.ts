import { describe, expect, it } from 'vitest';
import { tabsFor } from './tabs';

// The same cases as domain/src/catalogue/tabs.rs.
describe('market tabs', () => {
  it('puts Asian handicap and total in the Asian and Main tabs', () => {
    expect(tabsFor('AsianHandicap')).toEqual(['AsianHandicap', 'PopularHandicap', 'MainHandicap']);
    expect(tabsFor('AsianTotal')).toEqual(['AsianHandicap', 'MainHandicap', 'Goal']);
  });

  it('lists a market in several tabs once each, in tab order', () => {
    expect(tabsFor('OverUnder')).toEqual(['PopularHandicap', 'MainHandicap', 'Goal']);
    expect(tabsFor('HalfTimeFullTime')).toEqual(['FirstHalfSecondHalf', 'FunSelection']);
    expect(tabsFor('P1XP2')).toEqual(['PopularHandicap', 'MainHandicap']);
  });

  it('lets half markets inherit the Asian and Goal tabs but not Main', () => {
    expect(tabsFor('HalfTimeResult')).toEqual(['FirstHalfSecondHalf']);
    expect(tabsFor('FirstHalfAsianHandicap')).toEqual(['AsianHandicap', 'FirstHalfSecondHalf']);
    expect(tabsFor('SecondHalfOverUnder')).toEqual(['FirstHalfSecondHalf', 'Goal']);
    expect(tabsFor('FirstHalfP1XP2')).toEqual(['FirstHalfSecondHalf']);
  });

  it('places corners, players, minutes and overtime by family', () => {
    expect(tabsFor('CornerOverUnder')).toEqual(['CornerKick']);
    expect(tabsFor('FirstHalfCornerP1XP2')).toEqual(['FirstHalfSecondHalf', 'CornerKick']);
    expect(tabsFor('AnytimeGoalscorer')).toEqual(['Player']);
    expect(tabsFor('PlayerShotsOnTarget')).toEqual(['Player']);
    expect(tabsFor('GoalsFrom0To15Minutes')).toEqual(['Minutes']);
    expect(tabsFor('P1P2IncludingOvertime')).toEqual(['Overtime']);
    expect(tabsFor('ToQualify')).toEqual(['Overtime']);
    expect(tabsFor('SpecialFirstCardColour')).toEqual(['FunSelection']);
  });

  it('leaves unknown codes in no tab', () => {
    expect(tabsFor('SomethingElse')).toEqual([]);
    expect(tabsFor('')).toEqual([]);
  });
});
