// The cell's en-US locale: what V8 with ICU prints for its default locale, en-US, in
// Number.prototype.toLocaleString, BigInt.prototype.toLocaleString, Date.prototype.toLocale{,Date,
// Time}String, Array.prototype.toLocaleString and String.prototype.localeCompare, and a small Intl
// (NumberFormat, DateTimeFormat, Collator, PluralRules, getCanonicalLocales) on the same code.
// docs/adr/0063-en-us-locale-and-a-small-intl.md gives the decision and its limits: every locale
// resolves to en-US (as ECMA-402 lets an implementation that supports one locale do), dates are
// formatted in UTC (codemode's Date has no other time zone) unless a timeZone option names a zone,
// whose offset Go looks up (zones.go), and collation follows ICU's root order exactly for ASCII.
//
// These are the statements of a block that Go composes with the prelude (bridge.go,
// composePrelude), so they run once per runtime, into the memory image every cell starts from: a
// cell that never formats pays nothing. A block, not a function: a function would keep the whole
// text as its source (QuickJS keeps every function's text for toString), in every runtime's memory;
// the prelude is strict, so the block's declarations stay inside it. Like the prelude, the script
// captures every intrinsic it uses before cell code runs, so a cell that replaces
// Array.prototype.join or String.prototype.slice does not change how its numbers print. Some of
// its captures repeat the prelude's: each script declares what it uses, so that neither depends
// on the other's declarations across the text Go joins.
  const FunctionProto = Function.prototype;
  const apply = Reflect.apply;
  const uncurry = (fn) => apply(FunctionProto.bind, FunctionProto.call, [fn]);
  const ObjectCtor = Object;
  const StringCtor = String;
  const NumberCtor = Number;
  const MathAbs = Math.abs;
  const MathFloor = Math.floor;
  const isFiniteNumber = Number.isFinite;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const freeze = Object.freeze;
  const RangeErrorCtor = RangeError;
  const TypeErrorCtor = TypeError;
  const WeakMapCtor = WeakMap;
  const weakGet = uncurry(WeakMap.prototype.get);
  const weakSet = uncurry(WeakMap.prototype.set);
  const numberValueOf = uncurry(Number.prototype.valueOf);
  const numberToExponential = uncurry(Number.prototype.toExponential);
  const bigintValueOf = uncurry(BigInt.prototype.valueOf);
  const bigintToString = uncurry(BigInt.prototype.toString);
  const dateGetTime = uncurry(Date.prototype.getTime);
  const dateToString = uncurry(Date.prototype.toString);
  const dateToTimeString = uncurry(Date.prototype.toTimeString);
  const stringSlice = uncurry(String.prototype.slice);
  const stringIndexOf = uncurry(String.prototype.indexOf);
  const stringCharCodeAt = uncurry(String.prototype.charCodeAt);
  const stringToUpperCase = uncurry(String.prototype.toUpperCase);
  const stringToLowerCase = uncurry(String.prototype.toLowerCase);
  const stringNormalize = uncurry(String.prototype.normalize);
  const stringSplit = uncurry(String.prototype.split);
  const regexpTest = uncurry(RegExp.prototype.test);
  const regexpExec = uncurry(RegExp.prototype.exec);
  const arrayProto = Array.prototype;
  const NumberProto = Number.prototype;
  const DateProto = Date.prototype;

  // An array with no prototype: filled by index and read by index, it meets no setter a cell put
  // on Array.prototype.
  function list() {
    const a = [];
    ObjectCtor.setPrototypeOf(a, null);
    return a;
  }
  function push(a, v) {
    a[a.length] = v;
  }
  // setData defines a property as ECMA-402's CreateDataProperty does, meeting no setter a cell put
  // on Object.prototype or Array.prototype.
  function setData(o, k, v) {
    defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  }

  // dataArray is an ordinary array of a list's items, for a script to read.
  function dataArray(l) {
    const out = [];
    for (let i = 0; i < l.length; i++) setData(out, i, l[i]);
    return out;
  }

  function join(a, sep) {
    let s = "";
    for (let i = 0; i < a.length; i++) s = i === 0 ? "" + a[i] : s + sep + a[i];
    return s;
  }

  // install puts a method where the engine's was: writable, configurable, not enumerable, with
  // the name and length of V8's.
  function install(target, name, fn, length) {
    defineProperty(fn, "name", { value: name });
    defineProperty(fn, "length", { value: length });
    defineProperty(target, name, { value: fn, writable: true, enumerable: false, configurable: true });
  }

  // ---- locales and options ----

  const LOCALE = "en-US";
  const TAG = /^(?:[a-z]{2,3}|[a-z]{5,8})(?:-[a-z]{4})?(?:-(?:[a-z]{2}|[0-9]{3}))?(?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*(?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*(?:-x(?:-[a-z0-9]{1,8})+)?$/i;

  // canonicalTag is a well-formed language tag in canonical case ("EN-us" → "en-US"), or a
  // RangeError with V8's text.
  function canonicalTag(tag) {
    if (!regexpTest(TAG, tag)) throw new RangeErrorCtor("Invalid language tag: " + tag);
    const parts = stringSplit(stringToLowerCase(tag), "-");
    let out = parts[0];
    let ext = false;
    for (let i = 1; i < parts.length; i++) {
      let p = parts[i];
      if (p.length === 1) ext = true;
      if (!ext && p.length === 2) p = stringToUpperCase(p);
      else if (!ext && p.length === 4 && i === 1) p = stringToUpperCase(stringSlice(p, 0, 1)) + stringSlice(p, 1);
      out += "-" + p;
    }
    return out;
  }

  // canonicalLocales is CanonicalizeLocaleList: undefined, a tag, or a list of tags.
  function canonicalLocales(locales) {
    const out = list();
    if (locales === undefined) return out;
    if (typeof locales === "string") {
      push(out, canonicalTag(locales));
      return out;
    }
    if (locales === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    const o = ObjectCtor(locales);
    const n = NumberCtor(o.length) >>> 0;
    for (let i = 0; i < n; i++) {
      if (!(i in o)) continue;
      const v = o[i];
      if (typeof v !== "string" && (typeof v !== "object" || v === null)) {
        throw new TypeErrorCtor("Language ID should be string or object.");
      }
      const tag = canonicalTag(StringCtor(v));
      let seen = false;
      for (let j = 0; j < out.length; j++) if (out[j] === tag) seen = true;
      if (!seen) push(out, tag);
    }
    return out;
  }

  // resolveLocale checks the locales argument and resolves it to the first of en and en-US it
  // asks for, else to en-US, the default: every locale formats as en-US.
  function resolveLocale(locales) {
    const tags = canonicalLocales(locales);
    for (let i = 0; i < tags.length; i++) if (tags[i] === "en" || tags[i] === LOCALE) return tags[i];
    return LOCALE;
  }

  // supportedLocales is supportedLocalesOf: the requested tags that are en or en-US.
  function supportedLocales(locales) {
    const tags = canonicalLocales(locales);
    const out = list();
    for (let i = 0; i < tags.length; i++) {
      if (tags[i] === "en" || tags[i] === "en-US" || stringSlice(tags[i], 0, 6) === "en-US-") push(out, tags[i]);
    }
    return dataArray(out);
  }

  function optionsObject(options) {
    if (options === undefined) return ObjectCtor.create(null);
    if (options === null) throw new TypeErrorCtor("Cannot convert undefined or null to object");
    return ObjectCtor(options);
  }

  // getOption reads a string option restricted to values, with V8's RangeError otherwise.
  function getOption(options, name, values, fallback, where) {
    const v = options[name];
    if (v === undefined) return fallback;
    const s = typeof v === "boolean" ? v : StringCtor(v);
    if (values !== undefined) {
      for (let i = 0; i < values.length; i++) if (values[i] === s) return s;
      throw new RangeErrorCtor("Value " + s + " out of range for " + where + " options property " + name);
    }
    return s;
  }

  function getBoolean(options, name) {
    const v = options[name];
    return v === undefined ? undefined : !!v;
  }

  // getNumberOption reads an integer option within [min, max].
  function getNumberOption(options, name, min, max, fallback) {
    const v = options[name];
    if (v === undefined) return fallback;
    const n = NumberCtor(v);
    if (n !== n || n < min || n > max) throw new RangeErrorCtor(name + " value is out of range.");
    return MathFloor(n);
  }

  // ---- numbers ----

  // Decimal digits of a finite number at least 0: its shortest round-trip digits (what ICU
  // formats from) and the exponent of the first: value = d.ddd × 10^exp.
  function decimalOf(x) {
    if (x === 0) return { digits: "0", exp: 0 };
    const s = numberToExponential(x);
    const e = stringIndexOf(s, "e");
    const mantissa = stringSlice(s, 0, e);
    const digits = mantissa.length > 1 ? stringSlice(mantissa, 0, 1) + stringSlice(mantissa, 2) : mantissa;
    return { digits, exp: NumberCtor(stringSlice(s, e + 1)) };
  }

  // roundDigits keeps n digits of d (half away from zero, ICU's halfExpand), carrying into a new
  // leading digit; fewer than one digit left rounds to 0 or to one unit.
  function roundDigits(d, n) {
    const digits = d.digits;
    if (n >= digits.length) return d;
    if (n < 0) return { digits: "0", exp: d.exp, zero: true };
    const up = stringCharCodeAt(digits, n) >= 53;
    if (n === 0) return up ? { digits: "1", exp: d.exp + 1 } : { digits: "0", exp: d.exp, zero: true };
    let kept = stringSlice(digits, 0, n);
    let exp = d.exp;
    if (up) {
      let i = n - 1;
      let tail = "";
      while (i >= 0 && stringCharCodeAt(kept, i) === 57) {
        tail += "0";
        i--;
      }
      if (i < 0) {
        kept = "1" + tail;
        exp++;
      } else {
        kept = stringSlice(kept, 0, i) + StringCtor.fromCharCode(stringCharCodeAt(kept, i) + 1) + tail;
      }
    }
    return { digits: kept, exp };
  }

  function zeros(n) {
    let s = "";
    for (let i = 0; i < n; i++) s += "0";
    return s;
  }

  // fixedParts renders a decimal as integer and fraction digits, rounded by the number options:
  // significant digits when set, else fraction digits.
  function fixedParts(d, o) {
    let r;
    if (o.maxSig !== undefined) {
      r = roundDigits(d, o.maxSig);
    } else {
      r = roundDigits(d, d.exp + 1 + o.maxFrac);
    }
    let digits = r.zero ? "0" : r.digits;
    let exp = r.zero ? 0 : r.exp;
    // Trailing zeros are not digits of the value.
    let end = digits.length;
    while (end > 1 && stringCharCodeAt(digits, end - 1) === 48) end--;
    digits = stringSlice(digits, 0, end);
    let int;
    let frac;
    if (exp < 0) {
      int = "0";
      frac = zeros(-exp - 1) + digits;
    } else if (digits.length > exp + 1) {
      int = stringSlice(digits, 0, exp + 1);
      frac = stringSlice(digits, exp + 1);
    } else {
      int = digits + zeros(exp + 1 - digits.length);
      frac = "";
    }
    if (digits === "0") frac = "";
    let minFrac = o.minFrac;
    if (o.maxSig !== undefined) {
      // Significant digits shown: the digits, and the integer part's zeros; padded to minSig.
      const shown = digits === "0" ? 1 : exp >= 0 && exp + 1 > digits.length ? exp + 1 : digits.length;
      minFrac = frac.length + (o.minSig > shown ? o.minSig - shown : 0);
    }
    if (frac.length < minFrac) frac += zeros(minFrac - frac.length);
    if (int.length < o.minInt) int = zeros(o.minInt - int.length) + int;
    return { int, frac, zero: digits === "0" };
  }

  function group(int) {
    let out = "";
    let first = int.length % 3;
    if (first === 0) first = 3;
    out = stringSlice(int, 0, first);
    for (let i = first; i < int.length; i += 3) out += "," + stringSlice(int, i, i + 3);
    return out;
  }

  // The currencies whose en-US symbol is not their code, and those without two minor digits.
  const CURRENCY_SYMBOLS = {
    __proto__: null, USD: "$", EUR: "€", GBP: "£", JPY: "¥", CNY: "CN¥", INR: "₹", KRW: "₩", CAD: "CA$",
    AUD: "A$", MXN: "MX$", BRL: "R$", HKD: "HK$", NZD: "NZ$", TWD: "NT$", ILS: "₪", VND: "₫", PHP: "₱",
    XAF: "FCFA", XOF: "F\u202fCFA", XCD: "EC$", XPF: "CFPF",
  };
  const CURRENCY_NARROW = {
    __proto__: null, CAD: "$", AUD: "$", MXN: "$", HKD: "$", NZD: "$", TWD: "$", CNY: "¥", RUB: "₽",
    TRY: "₺", SEK: "kr", NOK: "kr", DKK: "kr", PLN: "zł", ZAR: "R", SGD: "$", THB: "฿", UAH: "₴",
    NGN: "₦", KZT: "₸", CHF: "CHF",
  };
  const CURRENCY_DIGITS = {
    __proto__: null, JPY: 0, KRW: 0, VND: 0, CLP: 0, ISK: 0, PYG: 0, UGX: 0, XAF: 0, XOF: 0, XPF: 0,
    KMF: 0, GNF: 0, RWF: 0, DJF: 0, VUV: 0, BIF: 0, UYI: 0, BHD: 3, KWD: 3, JOD: 3, OMR: 3, TND: 3,
    LYD: 3, IQD: 0,
  };
  const CURRENCY_NAMES = {
    __proto__: null, USD: ["US dollar", "US dollars"], EUR: ["euro", "euros"],
    GBP: ["British pound", "British pounds"], JPY: ["Japanese yen", "Japanese yen"],
    CNY: ["Chinese yuan", "Chinese yuan"], INR: ["Indian rupee", "Indian rupees"],
    CAD: ["Canadian dollar", "Canadian dollars"], AUD: ["Australian dollar", "Australian dollars"],
    CHF: ["Swiss franc", "Swiss francs"], MXN: ["Mexican peso", "Mexican pesos"],
  };
  const COMPACT_SHORT = ["", "K", "M", "B", "T"];
  const COMPACT_LONG = ["", " thousand", " million", " billion", " trillion"];

  const NF = "Intl.NumberFormat";
  const STYLES = ["decimal", "percent", "currency", "unit"];
  const NOTATIONS = ["standard", "scientific", "engineering", "compact"];
  const SIGN_DISPLAYS = ["auto", "never", "always", "exceptZero", "negative"];

  // numberOptions resolves a NumberFormat's options (ECMA-402 InitializeNumberFormat, for the
  // one locale); where names the caller in RangeError texts, as V8 does.
  function numberOptions(locales, options, where) {
    const locale = resolveLocale(locales);
    const opts = optionsObject(options);
    const o = { __proto__: null, locale, numberingSystem: "latn" };
    getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", where);
    const style = getOption(opts, "style", STYLES, "decimal", where);
    o.style = style;
    let currency = opts.currency;
    if (currency !== undefined) {
      currency = StringCtor(currency);
      if (!regexpTest(/^[A-Za-z]{3}$/, currency)) throw new RangeErrorCtor("Invalid currency code : " + currency);
      currency = stringToUpperCase(currency);
    }
    const currencyDisplay = getOption(opts, "currencyDisplay", ["code", "symbol", "narrowSymbol", "name"], "symbol", where);
    const currencySign = getOption(opts, "currencySign", ["standard", "accounting"], "standard", where);
    if (opts.unit !== undefined || style === "unit") {
      throw new RangeErrorCtor("Invalid unit argument for " + where + "() '" + StringCtor(opts.unit) + "' (codemode formats no units)");
    }
    if (style === "currency") {
      if (currency === undefined) throw new TypeErrorCtor("Currency code is required with currency style.");
      o.currency = currency;
      o.currencyDisplay = currencyDisplay;
      o.currencySign = currencySign;
    }
    const notation = getOption(opts, "notation", NOTATIONS, "standard", where);
    const cDigits = style === "currency" ? (CURRENCY_DIGITS[currency] !== undefined ? CURRENCY_DIGITS[currency] : 2) : 0;
    const minFracDefault = style === "currency" && notation !== "compact" ? cDigits : 0;
    const maxFracDefault = style === "currency" && notation !== "compact" ? cDigits : style === "percent" ? 0 : notation === "compact" ? 0 : 3;
    o.minInt = getNumberOption(opts, "minimumIntegerDigits", 1, 21, 1);
    const mnfd = opts.minimumFractionDigits;
    const mxfd = opts.maximumFractionDigits;
    const mnsd = opts.minimumSignificantDigits;
    const mxsd = opts.maximumSignificantDigits;
    if (mnsd !== undefined || mxsd !== undefined) {
      o.minSig = getNumberOption(opts, "minimumSignificantDigits", 1, 21, 1);
      o.maxSig = getNumberOption(opts, "maximumSignificantDigits", o.minSig, 21, 21);
    } else if (mnfd !== undefined || mxfd !== undefined) {
      let mn = getNumberOption(opts, "minimumFractionDigits", 0, 100, undefined);
      let mx = getNumberOption(opts, "maximumFractionDigits", 0, 100, undefined);
      if (mn === undefined) mn = mx < minFracDefault ? mx : minFracDefault;
      else if (mx === undefined) mx = mn > maxFracDefault ? mn : maxFracDefault;
      else if (mn > mx) throw new RangeErrorCtor("maximumFractionDigits value is out of range.");
      o.minFrac = mn;
      o.maxFrac = mx;
    } else if (notation === "compact") {
      o.compactRounding = true;
      o.minFrac = 0;
      o.maxFrac = 0;
    } else {
      o.minFrac = minFracDefault;
      o.maxFrac = maxFracDefault;
    }
    const grouping = opts.useGrouping;
    o.useGrouping = grouping === undefined ? (notation === "compact" ? "min2" : "auto") : grouping === false || grouping === "false" ? false : grouping === true || grouping === "always" ? "always" : grouping === "min2" ? "min2" : "auto";
    o.notation = notation;
    o.compactDisplay = getOption(opts, "compactDisplay", ["short", "long"], "short", where);
    o.signDisplay = getOption(opts, "signDisplay", SIGN_DISPLAYS, "auto", where);
    o.roundingIncrement = 1;
    o.roundingMode = "halfExpand";
    o.roundingPriority = "auto";
    o.trailingZeroDisplay = "auto";
    return o;
  }

  // numberParts formats x (a Number, or a BigInt's decimal string) as ICU's en-US parts:
  // {type, value} in order.
  function numberParts(x, o) {
    const parts = list();
    const add = (type, value) => push(parts, { type, value });
    let negative;
    let d;
    if (typeof x === "string") {
      negative = stringCharCodeAt(x, 0) === 45;
      const digits = negative ? stringSlice(x, 1) : x;
      d = { digits, exp: digits.length - 1 };
      if (digits === "0") d = { digits: "0", exp: 0 };
    } else {
      negative = x < 0 || (x === 0 && 1 / x < 0);
      if (x !== x) return signed(parts, false, false, o, () => add("nan", "NaN"));
      if (!isFiniteNumber(x)) return signed(parts, negative, false, o, () => add("infinity", "∞"));
      d = decimalOf(MathAbs(x));
    }
    if (o.style === "percent" && d.digits !== "0") d = { digits: d.digits, exp: d.exp + 2 };
    let exponent = 0;
    let compact = 0;
    if (o.notation === "scientific" || o.notation === "engineering") {
      if (d.digits !== "0") {
        exponent = d.exp;
        if (o.notation === "engineering") exponent -= ((exponent % 3) + 3) % 3;
        d = { digits: d.digits, exp: d.exp - exponent };
        const r = fixedParts(d, o);
        if (r.int.length > (o.notation === "engineering" ? 3 : 1)) {
          exponent += o.notation === "engineering" ? 3 : 1;
          d = { digits: d.digits, exp: d.exp - (o.notation === "engineering" ? 3 : 1) };
        }
      }
    } else if (o.notation === "compact" && d.digits !== "0") {
      compact = d.exp >= 3 ? MathFloor(d.exp / 3) : 0;
      if (compact > 4) compact = 4;
      let scaled = { digits: d.digits, exp: d.exp - compact * 3 };
      let r = fixedParts(scaled, compactOptions(o, scaled));
      if (compact < 4 && r.int.length > 3) {
        compact++;
        scaled = { digits: d.digits, exp: d.exp - compact * 3 };
      }
      d = scaled;
    }
    const ro = o.notation === "compact" ? compactOptions(o, d) : o;
    const r = fixedParts(d, ro);
    const zero = r.zero;
    return signed(parts, negative, zero, o, () => {
      const grouped = o.useGrouping === false || (o.useGrouping === "min2" && r.int.length < 5) ? r.int : group(r.int);
      const groups = stringSplit(grouped, ",");
      for (let i = 0; i < groups.length; i++) {
        if (i > 0) add("group", ",");
        add("integer", groups[i]);
      }
      if (r.frac !== "") {
        add("decimal", ".");
        add("fraction", r.frac);
      }
      if (exponent !== 0 || (o.notation === "scientific" || o.notation === "engineering")) {
        add("exponentSeparator", "E");
        if (exponent < 0) add("exponentMinusSign", "-");
        add("exponentInteger", StringCtor(MathAbs(exponent)));
      }
      if (compact > 0) {
        if (o.compactDisplay === "long") {
          add("literal", " ");
          add("compact", stringSlice(COMPACT_LONG[compact], 1));
        } else {
          add("compact", COMPACT_SHORT[compact]);
        }
      }
    });
  }

  // compactOptions rounds compact numbers as ICU does: two significant digits below 100, whole
  // numbers above, unless the options set digits.
  function compactOptions(o, d) {
    if (!o.compactRounding) return o;
    if (d.exp >= 1) return { __proto__: o, maxSig: undefined, minFrac: 0, maxFrac: 0 };
    return { __proto__: o, maxSig: 2, minSig: 1 };
  }

  // signed wraps the parts of a magnitude with the sign, currency and percent sign.
  function signed(parts, negative, zero, o, body) {
    const add = (type, value) => push(parts, { type, value });
    let sign = "";
    switch (o.signDisplay) {
      case "auto": sign = negative ? "-" : ""; break;
      case "always": sign = negative ? "-" : "+"; break;
      case "exceptZero": sign = zero ? "" : negative ? "-" : "+"; break;
      case "negative": sign = negative && !zero ? "-" : ""; break;
      case "never": sign = ""; break;
    }
    const accounting = o.style === "currency" && o.currencySign === "accounting" && sign === "-";
    if (accounting) add("literal", "(");
    else if (sign !== "") add(sign === "-" ? "minusSign" : "plusSign", sign);
    if (o.style === "currency") {
      const c = o.currency;
      if (o.currencyDisplay === "name") {
        body();
        add("literal", " ");
        const names = CURRENCY_NAMES[c];
        const one = partsText(parts) === "1" || partsText(parts) === "-1";
        add("currency", names === undefined ? c : one ? names[0] : names[1]);
        if (accounting) add("literal", ")");
        return parts;
      }
      let symbol = c;
      if (o.currencyDisplay === "symbol" || o.currencyDisplay === "narrowSymbol") {
        if (o.currencyDisplay === "narrowSymbol" && CURRENCY_NARROW[c] !== undefined) symbol = CURRENCY_NARROW[c];
        else if (CURRENCY_SYMBOLS[c] !== undefined) symbol = CURRENCY_SYMBOLS[c];
      }
      add("currency", symbol);
      if (regexpTest(/[A-Za-z]$/, symbol)) add("literal", "\u00a0");
    }
    body();
    if (o.style === "percent") add("percentSign", "%");
    if (accounting) add("literal", ")");
    return parts;
  }

  function partsText(parts) {
    let s = "";
    for (let i = 0; i < parts.length; i++) s += parts[i].value;
    return s;
  }

  // thisNumber is a Number receiver's value, with V8's TypeError for anything else.
  function thisNumber(v) {
    if (typeof v === "number") return v;
    try {
      return numberValueOf(v);
    } catch (_) {
      throw new TypeErrorCtor("Number.prototype.toLocaleString requires that 'this' be a Number");
    }
  }

  // The options of a call without arguments, resolved once: most calls pass none.
  let defaultNumber;

  function toLocaleStringNumber() {
    const x = thisNumber(this);
    let o;
    if (arguments[0] === undefined && arguments[1] === undefined) {
      if (defaultNumber === undefined) defaultNumber = numberOptions(undefined, undefined, "Number.prototype.toLocaleString");
      o = defaultNumber;
    } else {
      o = numberOptions(arguments[0], arguments[1], "Number.prototype.toLocaleString");
    }
    return partsText(numberParts(x, o));
  }

  function toLocaleStringBigInt() {
    let x;
    if (typeof this === "bigint") {
      x = this;
    } else {
      try {
        x = bigintValueOf(this);
      } catch (_) {
        throw new TypeErrorCtor("BigInt.prototype.toLocaleString requires that 'this' be a BigInt");
      }
    }
    return partsText(numberParts(bigintToString(x), numberOptions(arguments[0], arguments[1], "BigInt.prototype.toLocaleString")));
  }

  // ---- dates ----

  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
  const DTF = "Intl.DateTimeFormat";
  const TEXT_WIDTHS = ["narrow", "short", "long"];
  const NUMERIC_WIDTHS = ["2-digit", "numeric"];
  const MONTH_WIDTHS = ["2-digit", "numeric", "narrow", "short", "long"];

  // The bridge and its zone operation, handed over by connectLocale when the prelude is installed.
  let zoneHost;
  let zoneOp;

  // connectLocale gives the script the bridge: it asks Go for time zones (zones.go).
  function connectLocale(host, op) {
    zoneHost = host;
    zoneOp = op;
  }

  // zoneAt is a named zone's [offset in seconds, abbreviation] at time t, from Go, or undefined
  // when Go knows no such zone.
  function zoneAt(zone, t) {
    const reply = zoneHost === undefined ? undefined : zoneHost(zoneOp + (t - (t % 1)) + " " + zone);
    if (typeof reply !== "string") return undefined;
    const space = stringIndexOf(reply, " ");
    return [NumberCtor(stringSlice(reply, 0, space)), stringSlice(reply, space + 1)];
  }

  const OFFSET_ZONE = /^([+-])([0-9]{2})(?::?([0-9]{2}))?$/;

  // timeZoneOf resolves the timeZone option: UTC under its names, a fixed offset (+05:30), or a
  // zone Go finds in the system's time zone database; anything else is V8's RangeError.
  function timeZoneOf(tz) {
    if (tz === undefined) return "UTC";
    const s = StringCtor(tz);
    const u = stringToUpperCase(s);
    if (u === "UTC" || u === "ETC/UTC" || u === "GMT" || u === "ETC/GMT" || u === "ETC/UCT" || u === "UCT" || u === "ETC/ZULU" || u === "ZULU" || u === "UNIVERSAL" || u === "ETC/UNIVERSAL" || u === "ETC/GMT0" || u === "GMT0") {
      return "UTC";
    }
    const m = regexpExec(OFFSET_ZONE, s);
    if (m !== null) {
      const minutes = NumberCtor(m[2]) * 60 + (m[3] === undefined ? 0 : NumberCtor(m[3]));
      if (minutes > 23 * 60 + 59) throw new RangeErrorCtor("Invalid time zone specified: " + s);
      return m[1] + m[2] + ":" + (m[3] === undefined ? "00" : m[3]);
    }
    if (zoneAt(s, 0) !== undefined) return s;
    // The database's names are case-sensitive, V8's are not: "america/new_york" is tried as
    // "America/New_York".
    const cased = capitalizeZone(s);
    if (cased !== s && zoneAt(cased, 0) !== undefined) return cased;
    throw new RangeErrorCtor("Invalid time zone specified: " + s);
  }

  // capitalizeZone writes a zone name in the database's usual case: each word capitalized.
  function capitalizeZone(s) {
    let out = "";
    let start = true;
    for (let i = 0; i < s.length; i++) {
      const ch = s[i];
      out += start ? stringToUpperCase(ch) : stringToLowerCase(ch);
      start = ch === "/" || ch === "_" || ch === "-";
    }
    return out;
  }

  // zoneOffset is the time zone's [offset in seconds, abbreviation or ""] at time t.
  function zoneOffset(zone, t) {
    if (zone === "UTC") return [0, "UTC"];
    const c = stringCharCodeAt(zone, 0);
    if (c === 43 || c === 45) {
      const seconds = (NumberCtor(stringSlice(zone, 1, 3)) * 60 + NumberCtor(stringSlice(zone, 4, 6))) * 60;
      return [c === 45 ? -seconds : seconds, ""];
    }
    const z = zoneAt(zone, t);
    return z === undefined ? [0, "UTC"] : z;
  }

  // US abbreviations ICU prints as short names in the Americas; elsewhere it prints GMT offsets.
  const US_ABBREVIATIONS = { __proto__: null, EST: 1, EDT: 1, CST: 1, CDT: 1, MST: 1, MDT: 1, PST: 1, PDT: 1, AKST: 1, AKDT: 1, HST: 1, HDT: 1 };
  // en's long names of the zones' abbreviations, where the abbreviation names one zone; by zone
  // where it does not (CST, IST).
  const LONG_NAMES = {
    __proto__: null, EST: "Eastern Standard Time", EDT: "Eastern Daylight Time", CST: "Central Standard Time",
    CDT: "Central Daylight Time", MST: "Mountain Standard Time", MDT: "Mountain Daylight Time", PST: "Pacific Standard Time",
    PDT: "Pacific Daylight Time", AKST: "Alaska Standard Time", AKDT: "Alaska Daylight Time", HST: "Hawaii-Aleutian Standard Time",
    HDT: "Hawaii-Aleutian Daylight Time", GMT: "Greenwich Mean Time", BST: "British Summer Time", CET: "Central European Standard Time",
    CEST: "Central European Summer Time", EET: "Eastern European Standard Time", EEST: "Eastern European Summer Time",
    WET: "Western European Standard Time", WEST: "Western European Summer Time", MSK: "Moscow Standard Time", JST: "Japan Standard Time",
    KST: "Korean Standard Time", AEST: "Australian Eastern Standard Time", AEDT: "Australian Eastern Daylight Time",
    ACST: "Australian Central Standard Time", ACDT: "Australian Central Daylight Time", AWST: "Australian Western Standard Time",
    NZST: "New Zealand Standard Time", NZDT: "New Zealand Daylight Time", HKT: "Hong Kong Standard Time", SAST: "South Africa Standard Time",
    "Asia/Kolkata IST": "India Standard Time", "Asia/Calcutta IST": "India Standard Time", "Asia/Shanghai CST": "China Standard Time",
    "Asia/Taipei CST": "Taipei Standard Time", "Europe/Dublin IST": "Irish Standard Time", "Asia/Jerusalem IST": "Israel Standard Time",
    "Asia/Jerusalem IDT": "Israel Daylight Time", "America/Sao_Paulo": "Brasilia Standard Time", "Asia/Dubai": "Gulf Standard Time",
    "Asia/Singapore": "Singapore Standard Time", "Asia/Kathmandu": "Nepal Time", "Asia/Bangkok": "Indochina Time",
    "Asia/Jakarta": "Western Indonesia Time", "Asia/Manila PST": "Philippine Standard Time", "Asia/Karachi PKT": "Pakistan Standard Time",
    "America/Argentina/Buenos_Aires": "Argentina Standard Time", "America/Mexico_City CST": "Central Standard Time",
  };

  // gmtOffset is ICU's localized GMT format: "GMT-5", "GMT+5:30" (short) or "GMT-05:00" (long).
  function gmtOffset(seconds, long) {
    if (seconds === 0) return long ? "GMT+00:00" : "GMT+0";
    const sign = seconds < 0 ? "-" : "+";
    const m = MathAbs(seconds) / 60;
    const h = MathFloor(m / 60);
    const mm = m - h * 60;
    if (long) return "GMT" + sign + pad2(h) + ":" + pad2(mm);
    return "GMT" + sign + h + (mm === 0 ? "" : ":" + pad2(mm));
  }

  // zoneName is the timeZoneName field of zone at offset and abbreviation abbr.
  function zoneName(zone, offset, abbr, style) {
    if (zone === "UTC") return style === "long" ? "Coordinated Universal Time" : style === "short" ? "UTC" : style === "shortOffset" || style === "shortGeneric" ? "GMT+0" : "GMT+00:00";
    const american = stringSlice(zone, 0, 8) === "America/" || stringSlice(zone, 0, 3) === "US/" || zone === "Pacific/Honolulu" || stringSlice(zone, 0, 7) === "Canada/";
    if (style === "short") {
      if (american && US_ABBREVIATIONS[abbr] === 1) return abbr;
      return offset === 0 ? "GMT" : gmtOffset(offset, false);
    }
    if (style === "long") {
      let byZone = LONG_NAMES[zone + " " + abbr];
      if (byZone === undefined) byZone = LONG_NAMES[zone];
      if (byZone !== undefined) return byZone;
      if ((US_ABBREVIATIONS[abbr] === 1 || abbr === "IST") && !american) return gmtOffset(offset, true);
      const name = abbr !== "" ? LONG_NAMES[abbr] : undefined;
      return name !== undefined ? name : offset === 0 ? "GMT" : gmtOffset(offset, true);
    }
    return gmtOffset(offset, style === "longOffset" || style === "longGeneric");
  }

  // dateOptions resolves a DateTimeFormat's options (ECMA-402 CreateDateTimeFormat with
  // ToDateTimeOptions's required/defaults, for the one locale).
  function dateOptions(locales, options, required, defaults) {
    const locale = resolveLocale(locales);
    const opts = optionsObject(options);
    const where = DTF;
    const o = { __proto__: null, locale, calendar: "gregory", numberingSystem: "latn" };
    getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", where);
    const hour12 = getBoolean(opts, "hour12");
    const hourCycle = getOption(opts, "hourCycle", ["h11", "h12", "h23", "h24"], undefined, where);
    o.timeZone = timeZoneOf(opts.timeZone);
    o.weekday = getOption(opts, "weekday", TEXT_WIDTHS, undefined, where);
    o.era = getOption(opts, "era", TEXT_WIDTHS, undefined, where);
    o.year = getOption(opts, "year", NUMERIC_WIDTHS, undefined, where);
    o.month = getOption(opts, "month", MONTH_WIDTHS, undefined, where);
    o.day = getOption(opts, "day", NUMERIC_WIDTHS, undefined, where);
    o.dayPeriod = getOption(opts, "dayPeriod", TEXT_WIDTHS, undefined, where);
    o.hour = getOption(opts, "hour", NUMERIC_WIDTHS, undefined, where);
    o.minute = getOption(opts, "minute", NUMERIC_WIDTHS, undefined, where);
    o.second = getOption(opts, "second", NUMERIC_WIDTHS, undefined, where);
    const fsd = opts.fractionalSecondDigits;
    if (fsd !== undefined) {
      const n = NumberCtor(fsd);
      if (!(n >= 1 && n <= 3)) throw new RangeErrorCtor("fractionalSecondDigits value is out of range.");
      o.fractionalSecondDigits = MathFloor(n);
    }
    o.timeZoneName = getOption(opts, "timeZoneName", ["short", "long", "shortOffset", "longOffset", "shortGeneric", "longGeneric"], undefined, where);
    getOption(opts, "formatMatcher", ["basic", "best fit"], "best fit", where);
    o.dateStyle = getOption(opts, "dateStyle", ["full", "long", "medium", "short"], undefined, where);
    o.timeStyle = getOption(opts, "timeStyle", ["full", "long", "medium", "short"], undefined, where);
    const hasDate = o.weekday !== undefined || o.year !== undefined || o.month !== undefined || o.day !== undefined;
    const hasTime = o.dayPeriod !== undefined || o.hour !== undefined || o.minute !== undefined || o.second !== undefined || o.fractionalSecondDigits !== undefined;
    if (o.dateStyle !== undefined || o.timeStyle !== undefined) {
      if (hasDate || hasTime || o.era !== undefined || o.timeZoneName !== undefined) {
        throw new TypeErrorCtor("Can't set option " + firstField(o) + " when " + (o.dateStyle !== undefined ? "dateStyle" : "timeStyle") + " is used");
      }
      if (required === "date" && o.dateStyle === undefined) throw new TypeErrorCtor("Invalid option : timeStyle");
      if (required === "time" && o.timeStyle === undefined) throw new TypeErrorCtor("Invalid option : dateStyle");
    } else {
      let needDefaults = true;
      if ((required === "date" || required === "any") && hasDate) needDefaults = false;
      if ((required === "time" || required === "any") && hasTime) needDefaults = false;
      if (needDefaults && (defaults === "date" || defaults === "all")) {
        o.year = "numeric";
        o.month = "numeric";
        o.day = "numeric";
      }
      if (needDefaults && (defaults === "time" || defaults === "all")) {
        o.hour = "numeric";
        o.minute = "numeric";
        o.second = "numeric";
      }
    }
    const usesHour = o.hour !== undefined || o.timeStyle !== undefined;
    if (usesHour) {
      const h12 = hour12 !== undefined ? hour12 : hourCycle === undefined ? true : hourCycle === "h11" || hourCycle === "h12";
      o.hourCycle = h12 ? "h12" : "h23";
      o.hour12 = h12;
    }
    return o;
  }

  function firstField(o) {
    const names = ["weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName"];
    for (let i = 0; i < names.length; i++) if (o[names[i]] !== undefined) return names[i];
    return "";
  }

  function pad2(n) {
    return n < 10 ? "0" + n : "" + n;
  }

  // fieldsOf splits a time value into its UTC calendar fields (proleptic Gregorian, as Date).
  function fieldsOf(t) {
    const day = MathFloor(t / 86400000);
    let ms = t - day * 86400000;
    // Civil from days (Howard Hinnant's algorithm), exact for every Date.
    const z = day + 719468;
    const era = MathFloor(z / 146097);
    const doe = z - era * 146097;
    const yoe = MathFloor((doe - MathFloor(doe / 1460) + MathFloor(doe / 36524) - MathFloor(doe / 146096)) / 365);
    const doy = doe - (365 * yoe + MathFloor(yoe / 4) - MathFloor(yoe / 100));
    const mp = MathFloor((5 * doy + 2) / 153);
    const d = doy - MathFloor((153 * mp + 2) / 5) + 1;
    const m = mp < 10 ? mp + 3 : mp - 9;
    const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
    const hour = MathFloor(ms / 3600000);
    ms -= hour * 3600000;
    const minute = MathFloor(ms / 60000);
    ms -= minute * 60000;
    const second = MathFloor(ms / 1000);
    return { year: y, month: m - 1, day: d, weekday: ((day % 7) + 11) % 7, hour, minute, second, ms: ms - second * 1000 };
  }

  // dateParts formats t with resolved options o as ICU's en-US patterns do.
  function dateParts(t, o) {
    const parts = list();
    const add = (type, value) => push(parts, { type, value });
    const zone = zoneOffset(o.timeZone, t);
    const f = fieldsOf(t + zone[0] * 1000);
    let dateStyle = o.dateStyle;
    let timeStyle = o.timeStyle;
    let date = o;
    let time = o;
    if (dateStyle !== undefined) {
      date = dateStyle === "full" ? { weekday: "long", year: "numeric", month: "long", day: "numeric" }
        : dateStyle === "long" ? { year: "numeric", month: "long", day: "numeric" }
        : dateStyle === "medium" ? { year: "numeric", month: "short", day: "numeric" }
        : { year: "2-digit", month: "numeric", day: "numeric" };
    }
    if (timeStyle !== undefined) {
      time = { hour: "numeric", minute: "2-digit", second: timeStyle === "short" ? undefined : "2-digit",
        timeZoneName: timeStyle === "full" ? "long" : timeStyle === "long" ? "short" : undefined, hour12: o.hour12 };
    } else if (dateStyle !== undefined) {
      time = {};
    }
    const hasDate = date.weekday !== undefined || date.year !== undefined || date.month !== undefined || date.day !== undefined || date.era !== undefined;
    const hasTime = time.hour !== undefined || time.minute !== undefined || time.second !== undefined || time.fractionalSecondDigits !== undefined || time.dayPeriod !== undefined;
    if (hasDate) datePart(f, date, add);
    // ICU glues a date with a long month name to its time with " at ", others with ", ".
    if (hasDate && hasTime) add("literal", date.month === "long" ? " at " : ", ");
    if (hasTime) timePart(f, time, o.hour12, add);
    const tzn = time.timeZoneName !== undefined ? time.timeZoneName : o.timeZoneName;
    if (tzn !== undefined) {
      if (hasDate || hasTime) add("literal", hasTime ? " " : ", ");
      add("timeZoneName", zoneName(o.timeZone, zone[0], zone[1], tzn));
    }
    return parts;
  }

  function yearText(y, width) {
    const era = y <= 0 ? 1 - y : y;
    return width === "2-digit" ? pad2(era % 100) : "" + era;
  }

  function datePart(f, o, add) {
    const textMonth = o.month === "long" || o.month === "short" || o.month === "narrow";
    const weekday = o.weekday === undefined ? undefined : o.weekday === "long" ? DAYS[f.weekday] : o.weekday === "short" ? stringSlice(DAYS[f.weekday], 0, 3) : stringSlice(DAYS[f.weekday], 0, 1);
    const day = o.day === undefined ? undefined : o.day === "2-digit" ? pad2(f.day) : "" + f.day;
    const year = o.year === undefined ? undefined : yearText(f.year, o.year);
    const onlyWeekday = o.year === undefined && o.month === undefined && o.day === undefined;
    if (weekday !== undefined) {
      add("weekday", weekday);
      if (!onlyWeekday) add("literal", ", ");
    }
    if (textMonth) {
      const name = MONTHS[f.month];
      add("month", o.month === "long" ? name : o.month === "short" ? stringSlice(name, 0, 3) : stringSlice(name, 0, 1));
      if (day !== undefined) {
        add("literal", " ");
        add("day", day);
      }
      if (year !== undefined) {
        add("literal", day !== undefined ? ", " : " ");
        add("year", year);
      }
    } else {
      let first = true;
      const field = (type, value) => {
        if (value === undefined) return;
        if (!first) add("literal", "/");
        add(type, value);
        first = false;
      };
      field("month", o.month === undefined ? undefined : o.month === "2-digit" ? pad2(f.month + 1) : "" + (f.month + 1));
      field("day", day);
      field("year", year);
    }
    if (o.era !== undefined) {
      if (!onlyWeekday || weekday !== undefined) add("literal", " ");
      const bc = f.year <= 0;
      add("era", o.era === "long" ? (bc ? "Before Christ" : "Anno Domini") : o.era === "short" ? (bc ? "BC" : "AD") : (bc ? "B" : "A"));
    }
  }

  function timePart(f, o, hour12, add) {
    const h12 = o.hour12 !== undefined ? o.hour12 : hour12 !== false;
    const fields = list();
    if (o.hour !== undefined) {
      let h = f.hour;
      let s;
      if (h12) {
        h = h % 12 === 0 ? 12 : h % 12;
        s = o.hour === "2-digit" ? pad2(h) : "" + h;
      } else {
        s = o.hour === "2-digit" || o.minute !== undefined || o.second !== undefined ? pad2(h) : "" + h;
      }
      push(fields, ["hour", s]);
    }
    const combined = (o.hour !== undefined ? 1 : 0) + (o.minute !== undefined ? 1 : 0) + (o.second !== undefined ? 1 : 0) > 1;
    if (o.minute !== undefined) push(fields, ["minute", combined ? pad2(f.minute) : "" + f.minute]);
    if (o.second !== undefined) push(fields, ["second", combined ? pad2(f.second) : "" + f.second]);
    for (let i = 0; i < fields.length; i++) {
      if (i > 0) add("literal", ":");
      add(fields[i][0], fields[i][1]);
    }
    if (o.fractionalSecondDigits !== undefined) {
      if (fields.length > 0) add("literal", ".");
      add("fractionalSecond", stringSlice("" + (1000 + f.ms), 1, 1 + o.fractionalSecondDigits));
    }
    if (o.hour !== undefined && h12) {
      add("literal", " ");
      add("dayPeriod", f.hour < 12 ? "AM" : "PM");
    } else if (o.dayPeriod !== undefined && o.hour === undefined) {
      if (fields.length > 0 || o.fractionalSecondDigits !== undefined) add("literal", " ");
      add("dayPeriod", flexiblePeriod(f.hour, f.minute, f.second, o.dayPeriod));
    }
  }

  // flexiblePeriod is en's day period of a time of day ("in the afternoon").
  function flexiblePeriod(h, m, s, width) {
    if (h === 12 && m === 0 && s === 0) return width === "narrow" ? "n" : "noon";
    if (h >= 6 && h < 12) return "in the morning";
    if (h >= 12 && h < 18) return "in the afternoon";
    if (h >= 18 && h < 21) return "in the evening";
    return "at night";
  }

  // thisTime is a Date receiver's time value, with V8's TypeError for anything else.
  function thisTime(v, method) {
    try {
      return dateGetTime(v);
    } catch (_) {
      throw new TypeErrorCtor("Method Date.prototype." + method + " called on incompatible receiver " + describeValue(v));
    }
  }

  function formatDate(t, o) {
    if (t !== t) return "Invalid Date";
    return partsText(dateParts(t, o));
  }

  // The options of calls without arguments, resolved once per kind.
  const defaultDates = { __proto__: null };

  function localeDate(date, locales, options, required, defaults, method) {
    const t = thisTime(date, method);
    if (t !== t) return "Invalid Date";
    let o;
    if (locales === undefined && options === undefined) {
      o = defaultDates[required];
      if (o === undefined) o = defaultDates[required] = dateOptions(undefined, undefined, required, defaults);
    } else {
      o = dateOptions(locales, options, required, defaults);
    }
    return formatDate(t, o);
  }

  function toLocaleStringDate() {
    return localeDate(this, arguments[0], arguments[1], "any", "all", "toLocaleString");
  }

  function toLocaleDateString() {
    return localeDate(this, arguments[0], arguments[1], "date", "date", "toLocaleDateString");
  }

  function toLocaleTimeString() {
    return localeDate(this, arguments[0], arguments[1], "time", "time", "toLocaleTimeString");
  }

  // V8 ends a Date's string with the time zone's name from ICU: "Thu Jan 01 1970 00:00:00
  // GMT+0000 (Coordinated Universal Time)". codemode's Date is in UTC.
  const UTC_NAME = " (Coordinated Universal Time)";

  function toStringDate() {
    thisTime(this, "toString");
    const s = dateToString(this);
    return s === "Invalid Date" ? s : s + UTC_NAME;
  }

  function toTimeStringDate() {
    thisTime(this, "toTimeString");
    const s = dateToTimeString(this);
    return s === "Invalid Date" ? s : s + UTC_NAME;
  }

  // ---- arrays ----

  // Array.prototype.toLocaleString passes its arguments on to each element's toLocaleString
  // (ECMA-402), joined by ",", with "" for null and undefined.
  function toLocaleStringArray() {
    const o = ObjectCtor(this);
    const n = NumberCtor(o.length) >>> 0;
    let s = "";
    for (let i = 0; i < n; i++) {
      if (i > 0) s += ",";
      const v = o[i];
      if (v !== undefined && v !== null) s += StringCtor(apply(ObjectCtor(v).toLocaleString, v, [arguments[0], arguments[1]]));
    }
    return s;
  }

  // ---- collation ----

  // ICU's root collation order of ASCII, measured on V8 (the differential's locale/compare
  // cases): the controls other than tab to carriage return are ignorable; then whitespace,
  // punctuation and symbols, digits, and letters with lower case before upper case.
  const ORDER = "\t\n\u000b\u000c\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBcCdDeEfFgGhHiIjJkKlLmMnNoOpPqQrRsStTuUvVwWxXyYzZ";
  // PRIMARY[c] is ASCII c's primary weight (0: ignorable), letters sharing one across cases.
  const PRIMARY = list();
  const PUNCTUATION = list();
  for (let c = 0; c < 128; c++) {
    PRIMARY[c] = 0;
    PUNCTUATION[c] = false;
  }
  {
    let w = 1;
    for (let i = 0; i < ORDER.length; i++) {
      const c = stringCharCodeAt(ORDER, i);
      // An upper-case letter shares the weight of the lower-case one before it.
      PRIMARY[c] = c >= 65 && c <= 90 ? w : ++w;
      PUNCTUATION[c] = i < ORDER.length - 62;
    }
  }
  const NON_ASCII = 1000;

  // collationElements is a string's collation elements: [primary, secondary, tertiary] per
  // character. Beyond ASCII, a character decomposes (NFD) into a base letter that sorts as its
  // ASCII letter and combining marks that count only as a secondary difference; any other
  // character sorts after ASCII by code point.
  function collationElements(s, o) {
    const out = list();
    const ascii = regexpTest(/^[\x00-\x7f]*$/, s);
    const src = ascii ? s : stringNormalize(s, "NFD");
    let pendingSecondary = 0;
    for (let i = 0; i < src.length; i++) {
      const c = stringCharCodeAt(src, i);
      if (c < 128) {
        const p = PRIMARY[c];
        if (p === 0) continue;
        if (o.ignorePunctuation && PUNCTUATION[c]) continue;
        if (o.numeric && c >= 48 && c <= 57) {
          let j = i;
          while (j < src.length && stringCharCodeAt(src, j) === 48) j++;
          let k = j;
          while (k < src.length && stringCharCodeAt(src, k) >= 48 && stringCharCodeAt(src, k) <= 57) k++;
          if (j === k && j > i) j--;
          // A run of digits weighs by its value: its length first, then its digits.
          push(out, [PRIMARY[48], 0, 0]);
          push(out, [k - j, 0, 0]);
          for (let m = j; m < k; m++) push(out, [PRIMARY[stringCharCodeAt(src, m)], 0, 0]);
          i = k - 1;
          continue;
        }
        const upper = c >= 65 && c <= 90;
        push(out, [p, 0, upper ? 2 : 1]);
      } else if (c >= 0x300 && c <= 0x36f) {
        if (out.length > 0) out[out.length - 1][1] = out[out.length - 1][1] * 64 + (c - 0x2ff);
        else pendingSecondary = c - 0x2ff;
      } else {
        push(out, [NON_ASCII + c, pendingSecondary, 1]);
        pendingSecondary = 0;
      }
    }
    return out;
  }

  function compareLevel(a, b, level, caseFirstUpper) {
    const n = a.length < b.length ? a.length : b.length;
    for (let i = 0; i < n; i++) {
      let x = a[i][level];
      let y = b[i][level];
      if (level === 2 && caseFirstUpper) {
        x = 3 - x;
        y = 3 - y;
      }
      if (x !== y) return x < y ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  }

  // WEIGHT maps an ASCII character to its primary weight, PUNCT to whether ignorePunctuation drops
  // it; indexing a string and these maps meets nothing a cell can replace.
  const WEIGHT = { __proto__: null };
  const PUNCT = { __proto__: null };
  for (let c = 0; c < 128; c++) {
    WEIGHT[StringCtor.fromCharCode(c)] = PRIMARY[c];
    PUNCT[StringCtor.fromCharCode(c)] = PUNCTUATION[c];
  }

  // collateASCII is collate for ASCII strings without numeric ordering, in one pass that
  // allocates nothing (sorting calls it n log n times): primary weights decide, then the first
  // difference of case. It answers undefined at the first character beyond ASCII.
  function collateASCII(x, y, o) {
    const skip = o.ignorePunctuation;
    let i = 0;
    let j = 0;
    let tertiary = 0;
    for (;;) {
      let a = 0;
      let b = 0;
      let ca = "";
      let cb = "";
      while (i < x.length) {
        ca = x[i++];
        a = WEIGHT[ca];
        if (a === undefined) return undefined;
        if (a !== 0 && !(skip && PUNCT[ca])) break;
        a = 0;
      }
      while (j < y.length) {
        cb = y[j++];
        b = WEIGHT[cb];
        if (b === undefined) return undefined;
        if (b !== 0 && !(skip && PUNCT[cb])) break;
        b = 0;
      }
      if (a === 0 || b === 0) {
        if (a !== b) return a === 0 ? -1 : 1;
        break;
      }
      if (a !== b) return a < b ? -1 : 1;
      if (tertiary === 0 && ca !== cb) {
        // Same primary, different characters: one letter in two cases, lower case first.
        tertiary = ca <= "Z" ? 1 : -1;
        if (o.caseFirst === "upper") tertiary = -tertiary;
      }
    }
    return o.sensitivity === "case" || o.sensitivity === "variant" ? tertiary : 0;
  }

  // collate compares two strings level by level: base letters, then accents, then case, as the
  // sensitivity asks.
  function collate(x, y, o) {
    if (x === y) return 0;
    if (!o.numeric) {
      const r = collateASCII(x, y, o);
      if (r !== undefined) return r;
    }
    const a = collationElements(x, o);
    const b = collationElements(y, o);
    let r = compareLevel(a, b, 0, false);
    if (r !== 0) return r;
    if (o.sensitivity === "accent" || o.sensitivity === "variant") {
      r = compareLevel(a, b, 1, false);
      if (r !== 0) return r;
    }
    if (o.sensitivity === "case" || o.sensitivity === "variant") {
      r = compareLevel(a, b, 2, o.caseFirst === "upper");
      if (r !== 0) return r;
    }
    return 0;
  }

  function collatorOptions(locales, options) {
    const locale = resolveLocale(locales);
    const opts = optionsObject(options);
    const where = "Intl.Collator";
    const usage = getOption(opts, "usage", ["sort", "search"], "sort", where);
    getOption(opts, "localeMatcher", ["lookup", "best fit"], "best fit", where);
    const numeric = getBoolean(opts, "numeric");
    const caseFirst = getOption(opts, "caseFirst", ["upper", "lower", "false"], undefined, where);
    const sensitivity = getOption(opts, "sensitivity", ["base", "accent", "case", "variant"], "variant", where);
    const ignorePunctuation = getBoolean(opts, "ignorePunctuation");
    return {
      __proto__: null, locale, usage, sensitivity, ignorePunctuation: ignorePunctuation === true,
      collation: "default", numeric: numeric === true, caseFirst: caseFirst === undefined ? "false" : caseFirst,
    };
  }

  const DEFAULT_COLLATION = { __proto__: null, sensitivity: "variant", numeric: false, ignorePunctuation: false, caseFirst: "false" };

  function localeCompare(that) {
    if (this === undefined || this === null) throw new TypeErrorCtor("String.prototype.localeCompare called on null or undefined");
    const s = StringCtor(this);
    const t = StringCtor(that);
    const locales = arguments[1];
    const options = arguments[2];
    const o = locales === undefined && options === undefined ? DEFAULT_COLLATION : collatorOptions(locales, options);
    return collate(s, t, o);
  }

  // ---- installation ----

  install(NumberProto, "toLocaleString", toLocaleStringNumber, 0);
  install(BigInt.prototype, "toLocaleString", toLocaleStringBigInt, 0);
  install(DateProto, "toLocaleString", toLocaleStringDate, 0);
  install(DateProto, "toLocaleDateString", toLocaleDateString, 0);
  install(DateProto, "toLocaleTimeString", toLocaleTimeString, 0);
  install(DateProto, "toString", toStringDate, 0);
  install(DateProto, "toTimeString", toTimeStringDate, 0);
  install(arrayProto, "toLocaleString", toLocaleStringArray, 0);
  install(String.prototype, "localeCompare", localeCompare, 1);

  // ---- Intl ----

  // Each Intl object's resolved options live in a WeakMap, out of reach of the script.
  const slots = new WeakMapCtor();

  function slotOf(v, ctor, method) {
    const s = typeof v === "object" && v !== null ? weakGet(slots, v) : undefined;
    if (s === undefined || s.ctor !== ctor) {
      throw new TypeErrorCtor("Method " + ctor + ".prototype." + method + " called on incompatible receiver " + describeValue(v));
    }
    return s;
  }

  // describeValue names a receiver as V8's "incompatible receiver" texts do: "#<Map>" for an
  // object (by its prototype's own constructor, read without running a getter), "[object Array]",
  // "[object Object]" without a prototype, the text of anything else.
  function describeValue(v) {
    if (typeof v === "string") return v;
    if (typeof v === "object" && v !== null) {
      if (isArray(v)) return "[object Array]";
      const proto = ObjectCtor.getPrototypeOf(v);
      if (proto === null) return "[object Object]";
      const c = ObjectCtor.getOwnPropertyDescriptor(proto, "constructor");
      const n = c !== undefined && typeof c.value === "function" ? ObjectCtor.getOwnPropertyDescriptor(c.value, "name") : undefined;
      return "#<" + (n !== undefined && typeof n.value === "string" && n.value !== "" ? n.value : "Object") + ">";
    }
    try {
      return StringCtor(v);
    } catch (_) {
      return typeof v;
    }
  }

  // namespaceClass makes an Intl constructor: callable with or without new (as V8's are), with
  // supportedLocalesOf and a prototype holding methods and the getters.
  function namespaceClass(name, init, methods, getters) {
    const ctor = function () {
      const o = ObjectCtor.create(new.target !== undefined ? new.target.prototype : proto);
      weakSet(slots, o, { ctor: name, options: init(arguments[0], arguments[1]) });
      return o;
    };
    const proto = ctor.prototype;
    defineProperty(ctor, "name", { value: stringSlice(name, 5) });
    defineProperty(ctor, "length", { value: 0 });
    install(ctor, "supportedLocalesOf", function (locales) {
      return supportedLocales(locales);
    }, 1);
    for (let i = 0; i < methods.length; i++) install(proto, methods[i][0], methods[i][1], methods[i][2]);
    for (let i = 0; i < getters.length; i++) {
      const g = getters[i];
      defineProperty(proto, g[0], { get: g[1], enumerable: false, configurable: true });
    }
    defineProperty(proto, Symbol.toStringTag, { value: name, configurable: true });
    return ctor;
  }

  // boundGetter is the format/compare getter of ECMA-402: a function bound to its object, made
  // once and kept.
  function boundGetter(ctorName, prop, fn) {
    return function () {
      const s = slotOf(this, ctorName, prop);
      if (s.bound === undefined) {
        const obj = this;
        s.bound = function (a, b) {
          return fn(obj, s.options, a, b);
        };
        defineProperty(s.bound, "name", { value: "" });
      }
      return s.bound;
    };
  }

  // resolved copies the resolved options in ECMA-402's order, leaving out what is unset.
  function resolved(o, names) {
    const out = {};
    for (let i = 0; i < names.length; i++) {
      const v = o[names[i]];
      if (v !== undefined) setData(out, names[i], v);
    }
    return out;
  }

  function toNumeric(v) {
    return typeof v === "bigint" ? bigintToString(v) : NumberCtor(v);
  }

  function formatNumberValue(obj, o, v) {
    return partsText(numberParts(toNumeric(v), o));
  }

  function partsArray(parts) {
    const out = list();
    for (let i = 0; i < parts.length; i++) push(out, { type: parts[i].type, value: parts[i].value });
    return dataArray(out);
  }

  const NUMBER_RESOLVED = ["locale", "numberingSystem", "style", "currency", "currencyDisplay", "currencySign", "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "useGrouping", "notation", "compactDisplay", "signDisplay", "roundingIncrement", "roundingMode", "roundingPriority", "trailingZeroDisplay"];

  const NumberFormat = namespaceClass("Intl.NumberFormat", (l, op) => numberOptions(l, op, NF), [
    ["resolvedOptions", function () {
      const o = slotOf(this, "Intl.NumberFormat", "resolvedOptions").options;
      const r = { __proto__: null };
      for (const k in o) r[k] = o[k];
      r.minimumIntegerDigits = o.minInt;
      if (o.maxSig !== undefined) {
        r.minimumSignificantDigits = o.minSig;
        r.maximumSignificantDigits = o.maxSig;
      } else {
        r.minimumFractionDigits = o.minFrac;
        r.maximumFractionDigits = o.maxFrac;
      }
      if (o.notation !== "compact") r.compactDisplay = undefined;
      return resolved(r, NUMBER_RESOLVED);
    }, 0],
    ["formatToParts", function (v) {
      return partsArray(numberParts(toNumeric(v), slotOf(this, "Intl.NumberFormat", "formatToParts").options));
    }, 1],
  ], [["format", boundGetter("Intl.NumberFormat", "format", formatNumberValue)]]);

  const DATE_RESOLVED = ["locale", "calendar", "numberingSystem", "timeZone", "hourCycle", "hour12", "weekday", "era", "year", "month", "day", "dayPeriod", "hour", "minute", "second", "fractionalSecondDigits", "timeZoneName", "dateStyle", "timeStyle"];

  function timeOf(v) {
    if (v === undefined) return Date.now();
    const t = NumberCtor(typeof v === "object" && v !== null && v instanceof Date ? dateGetTime(v) : v);
    if (!isFiniteNumber(t) || MathAbs(t) > 8.64e15) throw new RangeErrorCtor("Invalid time value");
    return t - (t % 1);
  }

  const DateTimeFormat = namespaceClass("Intl.DateTimeFormat", (l, op) => dateOptions(l, op, "any", "date"), [
    ["resolvedOptions", function () {
      const o = slotOf(this, "Intl.DateTimeFormat", "resolvedOptions").options;
      const r = resolved(o, DATE_RESOLVED);
      if (r.minute === "numeric" && r.hour !== undefined) r.minute = "2-digit";
      if (r.second === "numeric" && (r.hour !== undefined || r.minute !== undefined)) r.second = "2-digit";
      if (r.hour === "numeric" && o.hour12 === false && (r.minute !== undefined || r.second !== undefined)) r.hour = "2-digit";
      return r;
    }, 0],
    ["formatToParts", function (v) {
      return partsArray(dateParts(timeOf(v), slotOf(this, "Intl.DateTimeFormat", "formatToParts").options));
    }, 1],
  ], [["format", boundGetter("Intl.DateTimeFormat", "format", (obj, o, v) => partsText(dateParts(timeOf(v), o)))]]);

  const Collator = namespaceClass("Intl.Collator", collatorOptions, [
    ["resolvedOptions", function () {
      return resolved(slotOf(this, "Intl.Collator", "resolvedOptions").options, ["locale", "usage", "sensitivity", "ignorePunctuation", "collation", "numeric", "caseFirst"]);
    }, 0],
  ], [["compare", boundGetter("Intl.Collator", "compare", (obj, o, a, b) => collate(StringCtor(a), StringCtor(b), o))]]);

  // en's plural rules: cardinal "one" for 1 with no visible fraction digits; ordinal one, two,
  // few by the last digits.
  function pluralOptions(locales, options) {
    // ICU's plural rules exist for en, which V8 resolves en-US to.
    resolveLocale(locales);
    const locale = "en";
    const opts = optionsObject(options);
    const type = getOption(opts, "type", ["cardinal", "ordinal"], "cardinal", "Intl.PluralRules");
    const n = numberOptions(undefined, options === undefined ? undefined : { minimumFractionDigits: opts.minimumFractionDigits, maximumFractionDigits: opts.maximumFractionDigits, minimumSignificantDigits: opts.minimumSignificantDigits, maximumSignificantDigits: opts.maximumSignificantDigits, minimumIntegerDigits: opts.minimumIntegerDigits }, "Intl.PluralRules");
    return { __proto__: null, locale, type, number: n };
  }

  function pluralOf(o, v) {
    const x = NumberCtor(v);
    if (!isFiniteNumber(x)) return "other";
    const r = fixedParts(decimalOf(MathAbs(x)), o.number);
    if (o.type === "cardinal") return r.int === "1" && r.frac === "" ? "one" : "other";
    if (r.frac !== "") return "other";
    const n10 = NumberCtor(stringSlice(r.int, -1));
    const n100 = NumberCtor(stringSlice(r.int, -2));
    if (n10 === 1 && n100 !== 11) return "one";
    if (n10 === 2 && n100 !== 12) return "two";
    if (n10 === 3 && n100 !== 13) return "few";
    return "other";
  }

  const PluralRules = namespaceClass("Intl.PluralRules", pluralOptions, [
    ["select", function (v) {
      return pluralOf(slotOf(this, "Intl.PluralRules", "select").options, v);
    }, 1],
    ["resolvedOptions", function () {
      const o = slotOf(this, "Intl.PluralRules", "resolvedOptions").options;
      const r = { __proto__: null, locale: o.locale, type: o.type, notation: "standard", minimumIntegerDigits: o.number.minInt };
      if (o.number.maxSig !== undefined) {
        r.minimumSignificantDigits = o.number.minSig;
        r.maximumSignificantDigits = o.number.maxSig;
      } else {
        r.minimumFractionDigits = o.number.minFrac;
        r.maximumFractionDigits = o.number.maxFrac;
      }
      r.pluralCategories = o.type === "cardinal" ? ["one", "other"] : ["few", "one", "two", "other"];
      r.roundingIncrement = 1;
      r.roundingMode = "halfExpand";
      r.roundingPriority = "auto";
      r.trailingZeroDisplay = "auto";
      return resolved(r, ["locale", "type", "notation", "minimumIntegerDigits", "minimumFractionDigits", "maximumFractionDigits", "minimumSignificantDigits", "maximumSignificantDigits", "pluralCategories", "roundingIncrement", "roundingMode", "roundingPriority", "trailingZeroDisplay"]);
    }, 0],
  ], []);

  const Intl = {};
  defineProperty(Intl, Symbol.toStringTag, { value: "Intl", configurable: true });
  install(Intl, "getCanonicalLocales", function (locales) {
    return dataArray(canonicalLocales(locales));
  }, 1);
  const classes = [["DateTimeFormat", DateTimeFormat], ["NumberFormat", NumberFormat], ["Collator", Collator], ["PluralRules", PluralRules]];
  for (let i = 0; i < classes.length; i++) {
    defineProperty(Intl, classes[i][0], { value: classes[i][1], writable: true, enumerable: false, configurable: true });
  }
  defineProperty(globalThis, "Intl", { value: Intl, writable: true, enumerable: false, configurable: true });
