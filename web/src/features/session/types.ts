/** Auth data as login and registration answer it (docs/protocol.md) and as localStorage keeps it. */
export interface AuthData {
  auth_token: string;
  user_id: number | string;
  username: string;
  /** Millisecond epoch. */
  expires: number;
  never_expires: boolean;
}

/** A login or registration answer: auth data plus the session token. */
export interface LoginAnswer extends AuthData {
  session: string;
}

/** getconfig data. */
export interface ServerConfig {
  public_key: string;
  session_lifetime_ms: number;
  currencies: string[];
  default_currency: string;
  restricted_countries: string[];
  registration: {
    promo_code_enabled: boolean;
    affiliate_tag?: string | null;
    agreement_as_link: boolean;
    real_name_rule?: string;
  };
}

/** getmobilecountrycode entry: dial code, country, enabled. */
export interface CountryCode {
  code: string;
  country: string;
  enable: boolean | number;
}

/** user/userinfo data (e-mail and phone masked). */
export interface UserInfo {
  user_id: number | string;
  username: string;
  nickname: string;
  realname: string;
  email: string;
  phone: string;
  country_code: string;
  currency_name: string;
  gender: string;
  birth_date: string;
  vipname: string;
  /** VIP experience (valid turnover counted to the level) and rank in the market. */
  vipexpbalance?: string;
  userrank?: number;
  has_fund_password: boolean;
  has_security_question: boolean;
  summary: string;
  created: string | number;
}

/** -10010 data: the account has a phone and/or e-mail to verify this device with. */
export interface SafetyInfo {
  username: string;
  channels: Array<'phone' | 'email'>;
  phone?: string;
  email?: string;
}

/** Login state, spec 000 section 4. */
export const LOGGED_OUT = 0;
export const LOGGED_IN = 1;
export const LOGGING_IN = 2;
export type LoginState = typeof LOGGED_OUT | typeof LOGGED_IN | typeof LOGGING_IN;
