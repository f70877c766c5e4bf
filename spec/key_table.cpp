//===- key_table.cpp - One declaration per spec key ------------------------===//
//
// The only place that knows, per key, which KernelSpec field it is, how its
// values are spelled, when it applies and how it shows in a kernel's name
// (key_table.h). Adding a key to the vocabulary is one entry here plus its
// KernelSpec field; giving it to an op is one entry in that op's key list.
//
//===----------------------------------------------------------------------===//

#include "spec/key_table.h"

#include "spec/kernel_name.h"

#include <charconv>
#include <iterator>
#include <type_traits>
#include <utility>

namespace mxf::spec_detail {
namespace {

// ---- The spellings of each enum a key holds ----------------------------

template <typename Enum> struct Vocabulary;

template <> struct Vocabulary<RotationKind> {
  static std::pair<const RotationKind *, size_t> all() { return {kAllRotationKinds, std::size(kAllRotationKinds)}; }
  static const char *name(RotationKind v) { return rotationKindName(v); }
  static std::optional<RotationKind> parse(std::string_view t) { return parseRotationKind(t); }
};
template <> struct Vocabulary<RotationConvention> {
  static std::pair<const RotationConvention *, size_t> all() {
    return {kAllRotationConventions, std::size(kAllRotationConventions)};
  }
  static const char *name(RotationConvention v) { return rotationConventionName(v); }
  static std::optional<RotationConvention> parse(std::string_view t) {
    return parseRotationConvention(t);
  }
};
template <> struct Vocabulary<RotationSelect> {
  static std::pair<const RotationSelect *, size_t> all() { return {kAllRotationSelects, std::size(kAllRotationSelects)}; }
  static const char *name(RotationSelect v) { return rotationSelectName(v); }
  static std::optional<RotationSelect> parse(std::string_view t) {
    return parseRotationSelect(t);
  }
};
template <> struct Vocabulary<ElemFormat> {
  static std::pair<const ElemFormat *, size_t> all() {
    return {kAllElemFormats, std::size(kAllElemFormats)};
  }
  static const char *name(ElemFormat v) { return formatInfo(v).specName; }
  static std::optional<ElemFormat> parse(std::string_view t) { return parseElemFormat(t); }
};
template <> struct Vocabulary<ScaleRule> {
  static std::pair<const ScaleRule *, size_t> all() {
    return {kAllScaleRules, std::size(kAllScaleRules)};
  }
  static const char *name(ScaleRule v) { return scaleRuleName(v); }
  static std::optional<ScaleRule> parse(std::string_view t) { return parseScaleRule(t); }
};
template <> struct Vocabulary<Rounding> {
  static std::pair<const Rounding *, size_t> all() { return {kAllRoundings, std::size(kAllRoundings)}; }
  static const char *name(Rounding v) { return roundingName(v); }
  static std::optional<Rounding> parse(std::string_view t) { return parseRounding(t); }
};
template <> struct Vocabulary<Intermediate> {
  static std::pair<const Intermediate *, size_t> all() { return {kAllIntermediates, std::size(kAllIntermediates)}; }
  static const char *name(Intermediate v) { return intermediateName(v); }
  static std::optional<Intermediate> parse(std::string_view t) { return parseIntermediate(t); }
};
template <> struct Vocabulary<ScaleLayout> {
  static std::pair<const ScaleLayout *, size_t> all() { return {kAllScaleLayouts, std::size(kAllScaleLayouts)}; }
  static const char *name(ScaleLayout v) { return scaleLayoutName(v); }
  static std::optional<ScaleLayout> parse(std::string_view t) { return parseScaleLayout(t); }
};
template <> struct Vocabulary<WeightLayout> {
  static std::pair<const WeightLayout *, size_t> all() { return {kAllWeightLayouts, std::size(kAllWeightLayouts)}; }
  static const char *name(WeightLayout v) { return weightLayoutName(v); }
  static std::optional<WeightLayout> parse(std::string_view t) { return parseWeightLayout(t); }
};

template <typename Enum> bool isValueOf(Enum value) {
  auto [values, count] = Vocabulary<Enum>::all();
  for (size_t i = 0; i < count; ++i)
    if (values[i] == value)
      return true;
  return false;
}

// formatInfo() and friends promise nothing for a value outside their enum
// (a spec built in code may hold one); only call them on a real value.
template <typename Enum> const char *spellingOf(Enum value) {
  return isValueOf(value) ? Vocabulary<Enum>::name(value) : "?";
}

template <typename Enum> std::string joinedSpellings() {
  auto [values, count] = Vocabulary<Enum>::all();
  std::string out;
  for (size_t i = 0; i < count; ++i)
    out += (i ? ", " : "") + std::string(Vocabulary<Enum>::name(values[i]));
  return out;
}

// ---- Field access, generated per field ----------------------------------

template <auto Field>
using FieldType = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<KernelSpec &>().*Field)>>;

void appendInt(std::string &out, int value) {
  char digits[16];
  auto [end, ec] = std::to_chars(digits, digits + sizeof(digits), value);
  (void)ec; // 16 bytes hold any int
  out.append(digits, end);
}

/// "key=value" with the value escaped for a message.
std::string keyValue(SpecKey key, std::string_view value) {
  return std::string(specKeyName(key)) + "=" + escaped(value);
}

template <auto Field> bool sameValue(const KernelSpec &a, const KernelSpec &b) {
  return a.*Field == b.*Field;
}

template <auto Field> void appendNumber(std::string &out, const KernelSpec &spec) {
  appendInt(out, spec.*Field);
}

/// Decimal digits only, at most kMaxSpecNumberDigits of them, so the value
/// fits an int without overflow checks. Range checks are validateSpec's.
template <SpecKey Key, auto Field> Status parseNumber(KernelSpec &spec, std::string_view value) {
  for (char c : value)
    if (c < '0' || c > '9')
      return Status::failure(keyValue(Key, value) + ": " + specKeyName(Key) +
                             " must be a decimal number (digits 0-9 only, no sign)");
  if (value.size() > kMaxSpecNumberDigits)
    return Status::failure(keyValue(Key, value) + ": " + specKeyName(Key) + " has " +
                           std::to_string(value.size()) + " digits; at most " +
                           std::to_string(kMaxSpecNumberDigits) + " are accepted");
  int number = 0;
  for (char c : value)
    number = number * 10 + (c - '0');
  spec.*Field = number;
  return Status::success();
}

template <auto Field> void appendEnum(std::string &out, const KernelSpec &spec) {
  out += spellingOf(spec.*Field);
}

template <SpecKey Key, auto Field> Status parseEnum(KernelSpec &spec, std::string_view value) {
  std::optional<FieldType<Field>> parsed = Vocabulary<FieldType<Field>>::parse(value);
  if (!parsed)
    return Status::failure(keyValue(Key, value) + ": " + specKeyName(Key) + " must be one of " +
                           joinedSpellings<FieldType<Field>>());
  spec.*Field = *parsed;
  return Status::success();
}

template <auto Field> bool holdsEnumValue(const KernelSpec &spec) { return isValueOf(spec.*Field); }
template <auto Field> unsigned enumCode(const KernelSpec &spec) {
  return static_cast<unsigned>(spec.*Field);
}
template <auto Field> std::string spellings() { return joinedSpellings<FieldType<Field>>(); }

template <SpecKey Key, auto Field> constexpr KeyDeclaration numberKey(const char *name) {
  return {Key,     name,    KeyValueKind::Number, appendNumber<Field>, parseNumber<Key, Field>,
          sameValue<Field>, nullptr, nullptr, nullptr, nullptr, nullptr, false,
          NamePart::KeyAndNumber, nullptr};
}

template <SpecKey Key, auto Field> constexpr KeyDeclaration enumKey(const char *name) {
  return {Key,
          name,
          KeyValueKind::Enum,
          appendEnum<Field>,
          parseEnum<Key, Field>,
          sameValue<Field>,
          holdsEnumValue<Field>,
          enumCode<Field>,
          spellings<Field>,
          nullptr,
          nullptr,
          false,
          NamePart::Spelling,
          nullptr};
}

/// The declaration with a condition under which the op's key is part of a
/// spec's text.
constexpr KeyDeclaration appliesWhen(KeyDeclaration key, bool (*applies)(const KernelSpec &),
                                     std::string (*whyNot)(const KernelSpec &)) {
  key.applies = applies;
  key.whyNotApplicable = whyNot;
  return key;
}

constexpr KeyDeclaration namedAs(KeyDeclaration key, NamePart part,
                                 void (*custom)(std::string &, const KernelSpec &) = nullptr) {
  key.namePart = part;
  key.appendNamePart = custom;
  return key;
}

// ---- The keys' own rules --------------------------------------------------

bool rconvApplies(const KernelSpec &spec) { return isLearned(spec.rot); }
std::string whyNoRconv(const KernelSpec &spec) {
  return std::string("rconv applies only to rot=learned or learned_per_block (rot=") +
         rotationKindName(spec.rot) + " takes no matrix)";
}

// Choosing between rotating or not needs a rotation.
bool selectApplies(const KernelSpec &spec) { return spec.RS > 0; }
std::string whyNoSelect(const KernelSpec &) {
  return "select applies only to a rotating spec (RS > 0): with RS=0 there is no rotation to "
         "switch off";
}
void selectNamePart(std::string &name, const KernelSpec &spec) {
  if (spec.select == RotationSelect::Flag) // off, the default, adds nothing
    name += "_selflag";
  else if (spec.select == RotationSelect::Mask) // the mask's length is part of the ABI
    name += "_selmask" + std::to_string(spec.layers);
}

bool layersApplies(const KernelSpec &spec) { return spec.select == RotationSelect::Mask; }
std::string whyNoLayers(const KernelSpec &spec) {
  return std::string("layers applies only to select=mask (the length of layer_mask); select=") +
         rotationSelectName(spec.select) + " reads no mask";
}

const KeyDeclaration kArch = {
    SpecKey::Arch,
    "arch",
    KeyValueKind::Text,
    [](std::string &out, const KernelSpec &spec) { out += spec.arch; },
    // Any text is kept here; validateSpec says which archs exist.
    [](KernelSpec &spec, std::string_view value) {
      spec.arch.assign(value.data(), value.size());
      return Status::success();
    },
    sameValue<&KernelSpec::arch>,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    false,
    NamePart::Identifier,
    nullptr};

using SK = SpecKey;
using S = KernelSpec;

// In SpecKey order (keyDeclaration indexes it); the unit test checks it.
const KeyDeclaration kKeys[kNumSpecKeys] = {
    numberKey<SK::K, &S::K>("K"),
    numberKey<SK::RS, &S::RS>("RS"),
    enumKey<SK::Rot, &S::rot>("rot"),
    numberKey<SK::M, &S::M>("M"),
    numberKey<SK::Topk, &S::topk>("topk"),
    numberKey<SK::E, &S::E>("E"),
    numberKey<SK::Block, &S::block>("block"),
    numberKey<SK::Stage, &S::stage>("stage"),
    numberKey<SK::Emask, &S::emask>("emask"),
    numberKey<SK::N, &S::N>("N"),
    enumKey<SK::Fmt, &S::fmt>("fmt"),
    enumKey<SK::Scale, &S::scale>("scale"),
    enumKey<SK::Round, &S::round>("round"),
    enumKey<SK::Inter, &S::inter>("inter"),
    enumKey<SK::Layout, &S::layout>("layout"),
    enumKey<SK::Wlayout, &S::wlayout>("wlayout"),
    kArch,
    // xr, the default, adds nothing to the name.
    namedAs(appliesWhen(enumKey<SK::Rconv, &S::rconv>("rconv"), rconvApplies, whyNoRconv),
            NamePart::SpellingUnlessDefault),
    [] {
      KeyDeclaration select = namedAs(
          appliesWhen(enumKey<SK::Select, &S::select>("select"), selectApplies, whyNoSelect),
          NamePart::Custom, selectNamePart);
      select.omittedAtDefault = true;
      return select;
    }(),
    // select's part of the name carries the mask's length.
    namedAs(appliesWhen(numberKey<SK::Layers, &S::layers>("layers"), layersApplies, whyNoLayers),
            NamePart::Custom, [](std::string &, const KernelSpec &) {}),
    numberKey<SK::Add, &S::add>("add"),
};

} // namespace

const KeyDeclaration &keyDeclaration(SpecKey key) { return kKeys[static_cast<size_t>(key)]; }

} // namespace mxf::spec_detail

namespace mxf {

void appendKernelNameParts(std::string &name, const KernelSpec &spec) {
  using namespace spec_detail;
  static const KernelSpec kDefaults;
  for (SpecKey key : opKeys(spec.op)) {
    const KeyDeclaration &declaration = keyDeclaration(key);
    switch (declaration.namePart) {
    case NamePart::KeyAndNumber:
      name += '_';
      name += declaration.name;
      declaration.appendValue(name, spec);
      break;
    case NamePart::SpellingUnlessDefault:
      if (declaration.sameValue(spec, kDefaults))
        break;
      [[fallthrough]];
    case NamePart::Spelling:
      name += '_';
      declaration.appendValue(name, spec);
      break;
    case NamePart::Identifier: {
      // Free text in a KernelSpec; keep the name a C identifier even for a
      // spec validateSpec would reject.
      std::string text;
      declaration.appendValue(text, spec);
      name += '_';
      for (char c : text) {
        const bool identifier = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                (c >= '0' && c <= '9') || c == '_';
        name += identifier ? c : '_';
      }
      break;
    }
    case NamePart::Custom:
      declaration.appendNamePart(name, spec);
      break;
    }
  }
}

} // namespace mxf
