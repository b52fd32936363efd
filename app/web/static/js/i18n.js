// English and Arabic. Arabic turns the page right-to-left; the floor keeps its order (it is
// marked dir="ltr"): cards lie where they were played, the same for both players and languages.

const STRINGS = {
  en: {
    lobby: "Lobby", table: "Table", replay: "Replay", language: "العربية",
    you: "You", player: "Player", register: "Register", resume: "Resume with a token",
    signed_in: "Playing as", sign_out: "Forget this player", name: "Name", token: "Token",
    practice: "Practice against the bot", new_table: "New table", create: "Create table",
    ruleset: "Rule set", seats: "Seats", bots: "Bots at seats", target: "Target",
    turn_seconds: "Turn time (s)", private: "Private", your_seat: "Your seat",
    open_tables: "Tables", status: "Status", any: "any", waiting: "waiting", playing: "playing",
    ended: "ended", refresh: "Refresh", more: "More", join: "Sit at seat", watch: "Watch",
    ladder: "Ladder", profile: "Profile", rating: "Rating", points: "Points", wins: "Wins",
    draws: "Draws", losses: "Losses", provisional: "provisional", history: "Matches",
    unavailable: "Not available on this server yet.", none: "Nothing here yet.",
    hand: "Your hand", floor: "Floor", scores: "Scores", side: "Side", seat: "Seat",
    stock: "{0} cards left to deal", carry: "majority carried: {0} pending",
    turn_you: "Your turn", turn_of: "{0} to play", time_left: "{0} s left",
    waiting_players: "Waiting for players", takes: "Takes {0}", takes_nothing: "Takes nothing: it stays on the floor",
    basra: "Basra! +{0}", sweep: "sweeps the floor", play_hint: "Tap again, or tap the floor, to play",
    result: "Result", won: "Your side won", lost: "Your side lost", draw: "A draw",
    winner_side: "Side {0} won", points_paid: "Profile points: {0}", practice_pays: "Practice: no profile points",
    seed: "Revealed seed", open_replay: "Replay this match", rematch: "Rematch",
    rematch_offered: "A rematch is waiting for you.", rematch_join: "Join the rematch",
    rematch_watch: "Watch the rematch", left_forfeit: "{0} left the table: a forfeit",
    ran_out: "{0} ran out of time",
    take_seat: "Take seat {0}", spectating: "Watching", live: "live", offline: "reconnecting…",
    reason: "Reason", leave: "Leave (forfeit)", played: "{0} played {1}", took: "took {0}",
    viewer: "Viewer", public: "Public", support: "Support", support_token: "Support token",
    moves: "Moves", score_chart: "Score by round", dispute_log: "Dispute log",
    does_not_verify: "This match does not verify: seq {0} fails ({1}).", verified: "Verified",
    keys: "Keys: n/p event · >/< play · }/{ deal · ]/[ round · ^/$ first/last · g seq · ? help",
    key_next_event: "next event", key_prev_event: "previous event", key_next_play: "next play",
    key_prev_play: "previous play", key_next_deal: "next deal (where a deal is complete)",
    key_prev_deal: "previous deal", key_next_round: "next round (its opening floor)",
    key_prev_round: "previous round", key_first: "first event", key_last: "last event",
    key_jump: "jump to the position after event seq NUMBER",
    key_viewer: "viewer: the next in the list, support, your seat", key_help: "this help",
    jump_prompt: "jump to seq (1-{0}), then Enter: {1}", jump_cancelled: "jump cancelled",
    outside: "seq {0} is outside this match (1-{1})", no_seat_viewer: "seat {0} is not yours to view",
    at_first: "at the first event", at_last: "at the last event", round: "Round",
    at: "At", who: "Who", request: "Request", event: "Event", open_after_end: "The replay opens to everyone after the end; before it, choose your seat or support.",
    cards_left: "{0} taken", error: "Error",
    analysis: "Analysis", analysing: "Analysing the match…",
    no_analysis: "No analysis for this viewer yet (after the end, or for support).",
    analysis_hint: "Step to a play to see its analysis.",
    not_analysed: "Play {0} is not analysed: a bot's play, or one the clock made.",
    analysis_played: "{0}. {1} played {2} ({3})",
    analysis_best: "The strong bot plays {0} ({1})", cost: "cost {0}",
    mistake: "A mistake", mistake_because: "A mistake: {0}", mistakes: "Costliest mistakes",
  },
  ar: {
    lobby: "الردهة", table: "الطاولة", replay: "الإعادة", language: "English",
    you: "أنت", player: "اللاعب", register: "سجّل", resume: "استأنف برمز",
    signed_in: "تلعب باسم", sign_out: "انسَ هذا اللاعب", name: "الاسم", token: "الرمز",
    practice: "تدرّب ضد الروبوت", new_table: "طاولة جديدة", create: "أنشئ الطاولة",
    ruleset: "القواعد", seats: "المقاعد", bots: "روبوتات في المقاعد", target: "الهدف",
    turn_seconds: "وقت الدور (ث)", private: "خاصة", your_seat: "مقعدك",
    open_tables: "الطاولات", status: "الحالة", any: "الكل", waiting: "بانتظار", playing: "جارية",
    ended: "منتهية", refresh: "حدّث", more: "المزيد", join: "اجلس في المقعد", watch: "شاهد",
    ladder: "الترتيب", profile: "الملف", rating: "التصنيف", points: "النقاط", wins: "فوز",
    draws: "تعادل", losses: "خسارة", provisional: "مؤقت", history: "المباريات",
    unavailable: "غير متاح على هذا الخادم بعد.", none: "لا شيء بعد.",
    hand: "يدك", floor: "الأرض", scores: "النتيجة", side: "الفريق", seat: "المقعد",
    stock: "بقي {0} ورقة للتوزيع", carry: "الأغلبية مرحّلة: {0} معلّقة",
    turn_you: "دورك", turn_of: "دور {0}", time_left: "بقي {0} ث",
    waiting_players: "بانتظار اللاعبين", takes: "تأخذ {0}", takes_nothing: "لا تأخذ شيئًا: تبقى على الأرض",
    basra: "بصرة! +{0}", sweep: "تكنس الأرض", play_hint: "انقر مرة أخرى، أو انقر الأرض، للعب",
    result: "النتيجة", won: "فاز فريقك", lost: "خسر فريقك", draw: "تعادل",
    winner_side: "فاز الفريق {0}", points_paid: "نقاط الملف: {0}", practice_pays: "تدريب: بلا نقاط",
    seed: "البذرة المكشوفة", open_replay: "أعد مشاهدة المباراة", rematch: "مباراة جديدة",
    rematch_offered: "مباراة جديدة بانتظارك.", rematch_join: "انضم إلى المباراة الجديدة",
    rematch_watch: "شاهد المباراة الجديدة", left_forfeit: "غادر {0} الطاولة: انسحاب",
    ran_out: "نفد وقت {0}",
    take_seat: "خذ المقعد {0}", spectating: "مشاهدة", live: "مباشر", offline: "إعادة الاتصال…",
    reason: "السبب", leave: "غادر (انسحاب)", played: "{0} لعب {1}", took: "أخذ {0}",
    viewer: "المشاهد", public: "العامة", support: "الدعم", support_token: "رمز الدعم",
    moves: "النقلات", score_chart: "النتيجة حسب الجولة", dispute_log: "سجل النزاع",
    does_not_verify: "هذه المباراة لا تتحقق: التسلسل {0} يفشل ({1}).", verified: "متحقق منها",
    keys: "المفاتيح: n/p حدث · >/< لعبة · }/{ توزيع · ]/[ جولة · ^/$ الأول/الأخير · g تسلسل · ? مساعدة",
    key_next_event: "الحدث التالي", key_prev_event: "الحدث السابق", key_next_play: "اللعبة التالية",
    key_prev_play: "اللعبة السابقة", key_next_deal: "التوزيع التالي (حيث يكتمل التوزيع)",
    key_prev_deal: "التوزيع السابق", key_next_round: "الجولة التالية (أرضها الأولى)",
    key_prev_round: "الجولة السابقة", key_first: "الحدث الأول", key_last: "الحدث الأخير",
    key_jump: "انتقل إلى الموضع بعد الحدث ذي التسلسل NUMBER",
    key_viewer: "المشاهد: التالي في القائمة، الدعم، مقعدك", key_help: "هذه المساعدة",
    jump_prompt: "انتقل إلى التسلسل (1-{0})، ثم Enter: {1}", jump_cancelled: "أُلغي الانتقال",
    outside: "التسلسل {0} خارج هذه المباراة (1-{1})", no_seat_viewer: "المقعد {0} ليس لك لتشاهده",
    at_first: "عند الحدث الأول", at_last: "عند الحدث الأخير", round: "الجولة",
    at: "الوقت", who: "من", request: "الطلب", event: "الحدث", open_after_end: "تُفتح الإعادة للجميع بعد النهاية؛ قبلها اختر مقعدك أو الدعم.",
    cards_left: "أخذ {0}", error: "خطأ",
    analysis: "التحليل", analysing: "جارٍ تحليل المباراة…",
    no_analysis: "لا تحليل لهذا المشاهد بعد (بعد النهاية، أو للدعم).",
    analysis_hint: "انتقل إلى لعبة لترى تحليلها.",
    not_analysed: "اللعبة {0} غير محللة: لعبة روبوت، أو لعبها المؤقت.",
    analysis_played: "{0}. {1} لعب {2} ({3})",
    analysis_best: "الروبوت القوي يلعب {0} ({1})", cost: "الكلفة {0}",
    mistake: "خطأ", mistake_because: "خطأ: {0}", mistakes: "أكثر الأخطاء كلفة",
  },
};

const KEY = "basra.lang";

/** Add a page's or an area's own words: `addStrings({ en: {...}, ar: {...} })`, both languages. */
export function addStrings(words) {
  for (const lang of Object.keys(STRINGS)) Object.assign(STRINGS[lang], words[lang] || {});
}

/** The language in use: "en" or "ar". */
export function language() {
  const chosen = localStorage.getItem(KEY);
  return chosen === "ar" ? "ar" : "en";
}

/** A string of the language in use, with {0}, {1}… filled in. */
export function t(key, ...args) {
  const text = STRINGS[language()][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\d)\}/g, (_, i) => String(args[Number(i)]));
}

/** Set the page's direction and translate every element marked data-i18n. */
export function applyLanguage() {
  const lang = language();
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === "ar" ? "rtl" : "ltr";
  for (const el of document.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
}

/** Wire the language toggle (#lang); `onChange` redraws what the page drew itself. */
export function languageToggle(onChange) {
  applyLanguage();
  const button = document.getElementById("lang");
  if (!button) return;
  button.addEventListener("click", () => {
    localStorage.setItem(KEY, language() === "ar" ? "en" : "ar");
    applyLanguage();
    onChange && onChange();
  });
}
