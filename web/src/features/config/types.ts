/** The skin configuration served as /skins/conf.json. */
export interface SiteConfig {
  brand: string;
  /** Optional logo image; the brand text is shown when absent. */
  logo_url?: string;
  site_id: number;
  default_language: string;
  languages: string[];
  currencies: string[];
  default_currency: string;
  odds_format: string;
  /** Fractional odds on the standard ladder (default) or as exact fractions. */
  fractional_ladder?: boolean;
  /** Sport ids of the esports and virtual sports sections (spec 000 section 9: configured). */
  esports_sport_ids?: number[];
  virtual_sport_ids?: number[];
  main_menu_order: string[];
  balance_poll_ms: number;
  session_lifetime_ms: number;
  slow_response_ms: number;
  /** The request layer's ten [key, iv] pairs (config/default.toml [transport] pairs). */
  transport_pairs: Array<[string, string]>;
}
