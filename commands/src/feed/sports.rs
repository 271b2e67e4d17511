//! What the simulator plays: sports, their regions and competitions with
//! names in eng, zhh and tha, and each competition's own clubs (players for
//! tennis), so a fixture never pairs clubs of two leagues.

/// A name in the three languages of the platform (`eng` is the default).
#[derive(Debug, Clone, Copy)]
pub struct Named {
    pub eng: &'static str,
    pub zhh: &'static str,
    pub tha: &'static str,
}

impl Named {
    /// The translations the catalogue carries (`names`).
    pub fn names(&self) -> domain::catalogue::Names {
        [("eng", self.eng), ("zhh", self.zhh), ("tha", self.tha)]
            .into_iter()
            .map(|(l, n)| (l.to_string(), n.to_string()))
            .collect()
    }
}

const fn named(eng: &'static str, zhh: &'static str, tha: &'static str) -> Named {
    Named { eng, zhh, tha }
}

pub struct LeagueSpec {
    pub name: Named,
    pub clubs: &'static [&'static str],
}

pub struct RegionSpec {
    pub name: Named,
    pub leagues: &'static [LeagueSpec],
}

pub struct SportSpec {
    pub id: u64,
    pub name: Named,
    pub alias: &'static str,
    pub draws: bool,
    /// Expected total score (goals, points, games).
    pub scoring: u32,
    /// Regulation time shown on the clock (0: the sport has no clock).
    pub minutes: u32,
    pub states: &'static [&'static str],
    /// Games live at every moment (at least): kick-offs are staggered
    /// `live_seconds / (live_target + 1)` apart.
    pub live_target: usize,
    /// Seconds between kick-offs when the sport runs on a fixed cycle
    /// (virtual football: every 5 minutes); 0 for the staggered rule.
    pub cycle_s: i64,
    /// Days between two matchdays of one competition in the prematch
    /// fixture list (0: no fixture list, only the live cycle).
    pub matchday_every_days: i64,
    pub regions: &'static [RegionSpec],
}

pub const SPORTS: &[SportSpec] = &[
    SportSpec {
        id: 1,
        name: named("Football", "足球", "ฟุตบอล"),
        alias: "Soccer",
        draws: true,
        scoring: 3,
        minutes: 90,
        states: &["1st half", "2nd half"],
        live_target: 6,
        cycle_s: 0,
        matchday_every_days: 3,
        regions: &[
            RegionSpec {
                name: named("England", "英格兰", "อังกฤษ"),
                leagues: &[
                    LeagueSpec {
                        name: named("Premier League", "英超", "พรีเมียร์ลีก"),
                        clubs: &[
                            "Arsenal",
                            "Chelsea",
                            "Liverpool",
                            "Manchester City",
                            "Manchester United",
                            "Tottenham",
                            "Newcastle",
                            "Aston Villa",
                            "Everton",
                            "Brighton",
                        ],
                    },
                    LeagueSpec {
                        name: named("Championship", "英冠", "แชมเปียนชิพ"),
                        clubs: &[
                            "Leeds",
                            "Burnley",
                            "Sunderland",
                            "Norwich",
                            "Middlesbrough",
                            "Watford",
                            "Coventry",
                            "Stoke",
                            "Hull",
                            "Derby",
                        ],
                    },
                ],
            },
            RegionSpec {
                name: named("Spain", "西班牙", "สเปน"),
                leagues: &[LeagueSpec {
                    name: named("LaLiga", "西甲", "ลาลีกา"),
                    clubs: &[
                        "Real Madrid",
                        "Barcelona",
                        "Atletico Madrid",
                        "Sevilla",
                        "Valencia",
                        "Girona",
                        "Villarreal",
                        "Real Sociedad",
                        "Athletic Bilbao",
                        "Real Betis",
                    ],
                }],
            },
            RegionSpec {
                name: named("Germany", "德国", "เยอรมนี"),
                leagues: &[LeagueSpec {
                    name: named("Bundesliga", "德甲", "บุนเดสลีกา"),
                    clubs: &[
                        "Bayern",
                        "Dortmund",
                        "Leipzig",
                        "Leverkusen",
                        "Freiburg",
                        "Frankfurt",
                        "Stuttgart",
                        "Wolfsburg",
                        "Mainz",
                        "Union Berlin",
                    ],
                }],
            },
            RegionSpec {
                name: named("Italy", "意大利", "อิตาลี"),
                leagues: &[LeagueSpec {
                    name: named("Serie A", "意甲", "เซเรียอา"),
                    clubs: &[
                        "Inter",
                        "Milan",
                        "Juventus",
                        "Napoli",
                        "Roma",
                        "Lazio",
                        "Atalanta",
                        "Fiorentina",
                        "Bologna",
                        "Torino",
                    ],
                }],
            },
            RegionSpec {
                name: named("China", "中国", "จีน"),
                leagues: &[LeagueSpec {
                    name: named("Chinese Super League", "中超", "ไชนีสซูเปอร์ลีก"),
                    clubs: &[
                        "Shanghai Port",
                        "Beijing Guoan",
                        "Shandong Taishan",
                        "Chengdu Rongcheng",
                        "Shanghai Shenhua",
                        "Wuhan Three Towns",
                        "Tianjin Jinmen Tiger",
                        "Zhejiang FC",
                    ],
                }],
            },
            RegionSpec {
                name: named("Thailand", "泰国", "ไทย"),
                leagues: &[LeagueSpec {
                    name: named("Thai League 1", "泰超", "ไทยลีก"),
                    clubs: &[
                        "Buriram United",
                        "Bangkok United",
                        "BG Pathum United",
                        "Port FC",
                        "Muangthong United",
                        "Chiangrai United",
                        "Ratchaburi",
                        "Chonburi",
                    ],
                }],
            },
        ],
    },
    SportSpec {
        id: 2,
        name: named("Ice Hockey", "冰球", "ฮอกกี้น้ำแข็ง"),
        alias: "IceHockey",
        draws: true,
        scoring: 5,
        minutes: 60,
        states: &["period1", "period2", "period3"],
        live_target: 2,
        cycle_s: 0,
        matchday_every_days: 2,
        regions: &[
            RegionSpec {
                name: named("USA", "美国", "สหรัฐอเมริกา"),
                leagues: &[LeagueSpec {
                    name: named("NHL", "国家冰球联盟", "เอ็นเอชแอล"),
                    clubs: &[
                        "Rangers",
                        "Bruins",
                        "Oilers",
                        "Kings",
                        "Maple Leafs",
                        "Canadiens",
                        "Penguins",
                        "Avalanche",
                    ],
                }],
            },
            RegionSpec {
                name: named("Finland", "芬兰", "ฟินแลนด์"),
                leagues: &[LeagueSpec {
                    name: named("Liiga", "芬兰冰球联赛", "ลีกาฟินแลนด์"),
                    clubs: &[
                        "Tappara", "Ilves", "HIFK", "Lukko", "Karpat", "TPS", "Pelicans", "KalPa",
                    ],
                }],
            },
        ],
    },
    SportSpec {
        id: 3,
        name: named("Basketball", "篮球", "บาสเกตบอล"),
        alias: "Basketball",
        draws: false,
        scoring: 210,
        minutes: 48,
        states: &["quarter1", "quarter2", "quarter3", "quarter4"],
        live_target: 3,
        cycle_s: 0,
        matchday_every_days: 2,
        regions: &[
            RegionSpec {
                name: named("USA", "美国", "สหรัฐอเมริกา"),
                leagues: &[LeagueSpec {
                    name: named("NBA", "美国职业篮球联赛", "เอ็นบีเอ"),
                    clubs: &[
                        "Lakers",
                        "Celtics",
                        "Warriors",
                        "Heat",
                        "Bucks",
                        "Nuggets",
                        "Knicks",
                        "Suns",
                        "Mavericks",
                        "76ers",
                    ],
                }],
            },
            RegionSpec {
                name: named("China", "中国", "จีน"),
                leagues: &[LeagueSpec {
                    name: named("CBA", "中国男子篮球职业联赛", "ซีบีเอ"),
                    clubs: &[
                        "Guangdong Southern Tigers",
                        "Liaoning Flying Leopards",
                        "Beijing Ducks",
                        "Zhejiang Lions",
                        "Shanghai Sharks",
                        "Xinjiang Flying Tigers",
                        "Shenzhen Leopards",
                        "Shandong Heroes",
                    ],
                }],
            },
        ],
    },
    SportSpec {
        id: 4,
        name: named("Tennis", "网球", "เทนนิส"),
        alias: "Tennis",
        draws: false,
        scoring: 22,
        minutes: 0,
        states: &["set1", "set2", "set3"],
        live_target: 3,
        cycle_s: 0,
        matchday_every_days: 2,
        regions: &[RegionSpec {
            name: named("World", "国际", "นานาชาติ"),
            leagues: &[
                LeagueSpec {
                    name: named("ATP Tour", "ATP巡回赛", "เอทีพีทัวร์"),
                    clubs: &[
                        "Sinner J.",
                        "Alcaraz C.",
                        "Djokovic N.",
                        "Zverev A.",
                        "Medvedev D.",
                        "Fritz T.",
                        "Ruud C.",
                        "Rune H.",
                        "de Minaur A.",
                        "Tsitsipas S.",
                    ],
                },
                LeagueSpec {
                    name: named("WTA Tour", "WTA巡回赛", "ดับเบิลยูทีเอทัวร์"),
                    clubs: &[
                        "Sabalenka A.",
                        "Swiatek I.",
                        "Gauff C.",
                        "Zheng Q.",
                        "Rybakina E.",
                        "Pegula J.",
                        "Paolini J.",
                        "Navarro E.",
                        "Keys M.",
                        "Andreeva M.",
                    ],
                },
            ],
        }],
    },
    SportSpec {
        id: 75,
        name: named("Counter-Strike 2", "反恐精英2", "เคาน์เตอร์สไตรก์ 2"),
        alias: "CounterStrike",
        draws: false,
        scoring: 3,
        minutes: 0,
        states: &["map1", "map2", "map3"],
        live_target: 1,
        cycle_s: 0,
        matchday_every_days: 2,
        regions: &[RegionSpec {
            name: named("World", "国际", "นานาชาติ"),
            leagues: &[LeagueSpec {
                name: named("ESL Pro League", "ESL职业联赛", "อีเอสแอลโปรลีก"),
                clubs: &[
                    "Natus Vincere",
                    "FaZe",
                    "Vitality",
                    "G2",
                    "Spirit",
                    "MOUZ",
                    "Astralis",
                    "Liquid",
                    "Heroic",
                    "Falcons",
                ],
            }],
        }],
    },
    SportSpec {
        id: 300,
        name: named("Virtual Football", "虚拟足球", "ฟุตบอลเสมือนจริง"),
        alias: "VirtualFootball",
        draws: true,
        scoring: 3,
        minutes: 90,
        states: &["1st half", "2nd half"],
        live_target: 1,
        cycle_s: 300,
        matchday_every_days: 0,
        regions: &[RegionSpec {
            name: named("Virtual", "虚拟", "เสมือนจริง"),
            leagues: &[LeagueSpec {
                name: named("Virtual League", "虚拟联赛", "ลีกเสมือนจริง"),
                clubs: &[
                    "Red Lions",
                    "Blue Eagles",
                    "Green Wolves",
                    "Gold Bears",
                    "Black Sharks",
                    "White Tigers",
                    "Silver Foxes",
                    "Purple Owls",
                ],
            }],
        }],
    },
];

/// Virtual horse racing's names (the racing part of the simulator).
pub const RACING_NAME: Named = named("Virtual Horse Racing", "虚拟赛马", "แข่งม้าเสมือนจริง");
pub const RACING_REGION: Named = named("Virtual", "虚拟", "เสมือนจริง");
pub const RACING_TRACKS: &[Named] = &[
    named("Royal Downs", "皇家赛马场", "รอยัลดาวน์ส"),
    named("Meadow Park", "草地公园赛马场", "เมโดว์พาร์ก"),
];

pub fn spec(sport_id: u64) -> &'static SportSpec {
    SPORTS
        .iter()
        .find(|s| s.id == sport_id)
        .unwrap_or(&SPORTS[0])
}

/// The league a competition name belongs to, in a sport.
pub fn league(sport: &SportSpec, competition_name: &str) -> Option<&'static LeagueSpec> {
    let sport = spec(sport.id);
    sport
        .regions
        .iter()
        .flat_map(|r| r.leagues.iter())
        .find(|l| l.name.eng == competition_name)
}
