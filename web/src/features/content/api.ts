/** Content calls (spec 001 section 7.4, docs/content.md): request layer, guests too. */
import { apiGet } from '../../api';
import type { RuntimePopup } from './popupSchedule';

export interface NoticeItem { id: number; title: string; content: string }
export interface BannerItem { id: number; title: string; img: string; link?: string; place: 'index' | 'list' }
export interface CoverGame { HomeTeamId: number; AwayTeamId: number; HomeTeamName: string; AwayTeamName: string; MatchStartDateGMT: string }
export interface Cover { id?: number; title?: string; img?: string; link?: string; gameinfo?: CoverGame[] }
export interface NewsItem { id: number; title: string; summary?: string; content?: string; img?: string; type: number; created: number }
export interface HelpItem { id: number; slug: string; title: string; content?: string }

const list = <T,>(data: unknown, key = 'list'): T[] => {
  const value = (data as Record<string, unknown> | null)?.[key];
  return Array.isArray(value) ? (value as T[]) : [];
};

export const fetchNotices = (lang: string) => apiGet<unknown>('about/notices', { lang }).then((d) => list<NoticeItem>(d, 'msgList'));
export const fetchIndexBanners = (lang: string) => apiGet<unknown>('indexbannerslist', { lang }).then((d) => list<BannerItem>(d));
export const fetchCover = (lang: string) => apiGet<Cover | null>('getCoverList', { lang }).then((d) => d ?? {});
export const fetchPopups = (lang: string) => apiGet<unknown>('about/popups', { lang }).then((d) => list<RuntimePopup>(d));
export const fetchNews = (type?: number) => apiGet<unknown>('news/list', type ? { type } : {}).then((d) => list<NewsItem>(d));
export const fetchNewsItem = (id: number) => apiGet<NewsItem | null>('news/detail', { id });
export const fetchHelpList = (lang: string) => apiGet<unknown>('about/helplist', { lang }).then((d) => list<HelpItem>(d));
export const fetchHelpPage = (lang: string, title: string) => apiGet<HelpItem | null>('about/help', { lang, title });
