// SPDX-License-Identifier: Apache-2.0
// The typed options of both command lines (app/cli/argparser.h, app/cli/optiontype.h): each type,
// inclusive and open ranges, trailing characters, overflow, NaN and infinity, names and aliases,
// lists, validators, defaults, the error text, --help, and numbers under a German locale.

#include "app/cli/argparser.h"

#include <QtTest>

#include <clocale>
#include <cstdlib>
#include <stdexcept>

using namespace tgraph::cli;

namespace {

enum class Colour { Red = 3, Green = 7, Blue = 11 };
const char* colourName(Colour c) { return c == Colour::Red ? "red" : c == Colour::Green ? "green" : "blue"; }

// A parser with one option of `type` (and a default), parsed from `args`; the error or "".
struct Parsed
{
    ArgParser parser { "test", "a test command", "[options]" };
    std::string error;
    bool ok = false;
};

std::unique_ptr<Parsed> parse(
    OptionType type, const std::vector<std::string>& args, const std::string& defaultValue = {})
{
    auto p = std::make_unique<Parsed>();
    p->parser.addOption("--x", "-x", "V", "the value", defaultValue, std::move(type));
    p->ok = p->parser.parse(args, &p->error);
    return p;
}

// The error of `--x VALUE` (empty when accepted).
std::string refusal(const OptionType& type, const std::string& value)
{
    const auto p = parse(type, { "--x", value });
    return p->ok ? std::string() : p->error;
}

template <class F> bool throwsLogicError(F f)
{
    try {
        f();
    } catch (const std::logic_error&) {
        return true;
    }
    return false;
}

} // namespace

class TestArgParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void integers()
    {
        const OptionType t = opt::integer(1, 256);
        for (const char* good : { "1", "256", "64", "+7", "0064" })
            QVERIFY2(refusal(t, good).empty(), good);
        QCOMPARE(parse(t, { "--x", "+7" })->parser.get<int>("--x"), 7);
        QCOMPARE(parse(t, { "--x=256" })->parser.get<int64_t>("--x"), int64_t(256));
        QCOMPARE(parse(t, { "-x", "12" })->parser.get<short>("--x"), short(12));
        for (const char* outside : { "0", "257", "-1", "9223372036854775807", "-9223372036854775808" })
            QVERIFY2(refusal(t, outside).find("out of range") != std::string::npos, outside);
        for (const char* garbage : { "", "4x", "4 ", " 4", "4.0", "4e2", "0x10", "four", "+", "++4", "+-4", "1,000" })
            QVERIFY2(refusal(t, garbage).find("not an integer") != std::string::npos, garbage);
        // overflow is out of range, not a wrapped or clamped value
        QVERIFY(refusal(opt::integer(0), "9223372036854775808").find("out of range") != std::string::npos);
        QVERIFY(refusal(opt::integer(-5, 5), "-99999999999999999999").find("out of range") != std::string::npos);
        // the message names the option, the value and what is allowed
        QCOMPARE(refusal(t, "300"), std::string("--x '300': out of range (allowed: an integer in 1..256)"));
        QCOMPARE(refusal(opt::integer(2), "1"), std::string("--x '1': out of range (allowed: an integer >= 2)"));
        QCOMPARE(refusal(t, "4x"), std::string("--x '4x': not an integer (allowed: an integer in 1..256)"));
        // a type too small for the declared range is a programming error, not a truncation
        const auto wide = parse(opt::integer(0), { "--x", "5" });
        QVERIFY(throwsLogicError([&] { wide->parser.get<int>("--x"); }));
        QVERIFY(throwsLogicError([&] { wide->parser.get<double>("--x"); }));
        QCOMPARE(wide->parser.get<int64_t>("--x"), int64_t(5));
    }

    void sizes()
    {
        const OptionType seed = opt::size();
        QCOMPARE(parse(seed, { "--x", "18446744073709551615" })->parser.get<uint64_t>("--x"),
            uint64_t(18446744073709551615ull));
        QVERIFY(refusal(seed, "18446744073709551616").find("out of range") != std::string::npos);
        QVERIFY(refusal(seed, "-1").find("out of range") != std::string::npos);
        QVERIFY(refusal(seed, "1e3").find("not a non-negative integer") != std::string::npos);
        QVERIFY(refusal(seed, "-x").find("not a non-negative integer") != std::string::npos);
        const OptionType small = opt::size(std::numeric_limits<uint32_t>::max());
        QCOMPARE(parse(small, { "--x", "4294967295" })->parser.get<uint32_t>("--x"), uint32_t(4294967295u));
        QCOMPARE(refusal(small, "4294967296"),
            std::string("--x '4294967296': out of range (allowed: an integer in 0..4294967295)"));
        const auto full = parse(seed, { "--x", "5" });
        QVERIFY(throwsLogicError([&] { full->parser.get<uint32_t>("--x"); }));
        QVERIFY(throwsLogicError([&] { full->parser.get<int64_t>("--x"); }));
    }

    void reals()
    {
        const OptionType share = opt::real(0, 1);
        for (const char* good : { "0", "1", "0.5", ".5", "+0.25", "5e-1", "1E-3", "1.", "-0" })
            QVERIFY2(refusal(share, good).empty(), good);
        QCOMPARE(parse(share, { "--x", "5e-1" })->parser.get<double>("--x"), 0.5);
        for (const char* outside : { "1.0000001", "-0.1", "2" })
            QVERIFY2(refusal(share, outside).find("out of range") != std::string::npos, outside);
        for (const char* garbage : { "", "0,5", "0.5x", "0.5 ", " 0.5", "half", "0x1p-1", "1e", "." })
            QVERIFY2(refusal(share, garbage).find("not a number") != std::string::npos, garbage);
        const OptionType any = opt::real();
        for (const char* nonFinite : { "inf", "-inf", "nan", "NaN", "infinity" })
            QVERIFY2(refusal(any, nonFinite).find("not a finite number") != std::string::npos, nonFinite);
        QVERIFY(refusal(any, "+inf").find("not a number") != std::string::npos);
        QVERIFY(refusal(any, "1e999").find("out of range") != std::string::npos);
        QVERIFY(refusal(any, "-1e999").find("out of range") != std::string::npos);

        const OptionType positive = opt::real(0).excludingMin(); // --lr, --epochs
        QVERIFY(refusal(positive, "0").find("out of range") != std::string::npos);
        QVERIFY(refusal(positive, "1e-300").empty());
        QCOMPARE(refusal(positive, "0"), std::string("--x '0': out of range (allowed: a number > 0)"));
        const OptionType dropout = opt::real(0, 1).excludingMax();
        QVERIFY(refusal(dropout, "0").empty());
        QVERIFY(refusal(dropout, "0.999").empty());
        QCOMPARE(refusal(dropout, "1"), std::string("--x '1': out of range (allowed: a number in [0, 1))"));
        QVERIFY(throwsLogicError([] { opt::integer(0, 5).excludingMin(); }));
    }

    void durations()
    {
        const OptionType t = opt::duration(0, 86400);
        using ms = std::chrono::milliseconds;
        const std::pair<const char*, ms> cases[] = { { "60", ms(60000) }, { "2.5", ms(2500) }, { "1500ms", ms(1500) },
            { "90s", ms(90000) }, { "5m", ms(300000) }, { "2h", ms(7200000) }, { "0", ms(0) }, { "24h", ms(86400000) },
            { "0.0004", ms(0) } };
        for (const auto& [text, expected] : cases)
            QCOMPARE(parse(t, { "--x", text })->parser.get<ms>("--x"), expected);
        for (const char* garbage : { "", "abc", "5x", "5 s", "5min", "s", "1,5", "5sec" })
            QVERIFY2(refusal(t, garbage).find("not a duration") != std::string::npos, garbage);
        for (const char* outside : { "-1", "86401", "24.1h", "1e999" })
            QVERIFY2(refusal(t, outside).find("out of range") != std::string::npos, outside);
        for (const char* nonFinite : { "inf", "nan", "infs" })
            QVERIFY2(!refusal(t, nonFinite).empty(), nonFinite);
        QVERIFY(refusal(t, "abc").find("allowed: a duration in 0..86400 s") != std::string::npos);
    }

    void choices()
    {
        const OptionType plain = opt::oneOf({ "auto", "layout", "tile" });
        QVERIFY(refusal(plain, "tile").empty());
        QCOMPARE(parse(plain, { "--x", "layout" })->parser.get<std::string>("--x"), std::string("layout"));
        QCOMPARE(refusal(plain, "graph"), std::string("--x 'graph': unknown (allowed: auto, layout or tile)"));
        QVERIFY(!refusal(plain, "Tile").empty()); // exact spelling
        QVERIFY(!refusal(plain, "").empty());

        const OptionType colours
            = opt::oneOf({ Colour::Red, Colour::Green, Colour::Blue }, colourName).alias("verde", "green");
        QCOMPARE(parse(colours, { "--x", "blue" })->parser.get<Colour>("--x"), Colour::Blue);
        QCOMPARE(parse(colours, { "--x", "verde" })->parser.get<Colour>("--x"), Colour::Green);
        QCOMPARE(parse(colours, {}, "red")->parser.get<Colour>("--x"), Colour::Red);
        // aliases are accepted but not listed
        QCOMPARE(refusal(colours, "pink"), std::string("--x 'pink': unknown (allowed: red, green or blue)"));
        QVERIFY(throwsLogicError([] { opt::oneOf({ "a" }).alias("b", "c"); }));
    }

    void lists()
    {
        const OptionType ints = opt::integers(0, 9);
        QCOMPARE(parse(ints, { "--x", "1,2,,9" })->parser.get<std::vector<int64_t>>("--x"),
            (std::vector<int64_t> { 1, 2, 9 }));
        QCOMPARE(parse(ints, { "--x", "" })->parser.get<std::vector<int64_t>>("--x"), std::vector<int64_t> {});
        QCOMPARE(parse(ints, {})->parser.get<std::vector<int64_t>>("--x"), std::vector<int64_t> {}); // absent
        QCOMPARE(refusal(ints, "1,10"),
            std::string("--x '1,10': item '10' is out of range (allowed: comma-separated integers in 0..9)"));
        QVERIFY(refusal(ints, "1,2x").find("item '2x' is not an integer") != std::string::npos);
        QVERIFY(refusal(ints, "1;2").find("not an integer") != std::string::npos);

        const OptionType names = opt::names({ "mlp", "resnet", "unet" });
        QCOMPARE(parse(names, { "--x", "unet,mlp" })->parser.get<std::vector<std::string>>("--x"),
            (std::vector<std::string> { "unet", "mlp" }));
        QCOMPARE(parse(names, {})->parser.get<std::vector<std::string>>("--x"), std::vector<std::string> {});
        QCOMPARE(parse(names, {}, "resnet")->parser.get<std::vector<std::string>>("--x"),
            std::vector<std::string> { "resnet" });
        QCOMPARE(refusal(names, "mlp,vgg"),
            std::string("--x 'mlp,vgg': item 'vgg' is unknown (allowed: comma-separated names out of mlp, resnet or "
                        "unet)"));
    }

    void customForms()
    {
        const OptionType even = opt::custom("an even number", [](const std::string& text) {
            return !text.empty() && (text.back() - '0') % 2 == 0 ? std::string() : std::string("odd");
        });
        QVERIFY(refusal(even, "42").empty());
        QCOMPARE(refusal(even, "43"), std::string("--x '43': odd (allowed: an even number)"));
        // a validator whose message says it all gets no "allowed" suffix
        const OptionType quiet = opt::custom({}, [](const std::string&) { return std::string("no such thing"); });
        QCOMPARE(refusal(quiet, "v"), std::string("--x 'v': no such thing"));
    }

    void everyOccurrenceIsChecked()
    {
        const auto p = parse(opt::integer(0, 9), { "--x", "1", "--x", "12" });
        QVERIFY(!p->ok);
        QVERIFY(p->error.find("'12'") != std::string::npos);
        const auto last = parse(opt::integer(0, 9), { "--x", "1", "--x=4" });
        QVERIFY(last->ok);
        QCOMPARE(last->parser.get<int>("--x"), 4); // the last one, as value()
    }

    void defaultsAndAbsence()
    {
        // a default must be valid for its type: found when the command is declared
        QVERIFY(throwsLogicError([] { parse(opt::integer(1, 9), {}, "0"); }));
        QVERIFY(throwsLogicError([] { parse(opt::real(0, 1), {}, "0,5"); }));
        QVERIFY(throwsLogicError([] {
            ArgParser p("t", "", "");
            p.addOption("--flag", "", "", "a flag", {}, opt::integer(0));
        }));
        const auto withDefault = parse(opt::integer(1, 9), {}, "3");
        QVERIFY(withDefault->ok && !withDefault->parser.has("--x"));
        QCOMPARE(withDefault->parser.get<int>("--x"), 3);
        const auto absent = parse(opt::integer(1, 9), {});
        QVERIFY(absent->ok);
        QVERIFY(throwsLogicError([&] { absent->parser.get<int>("--x"); }));
        QVERIFY(throwsLogicError([&] { absent->parser.get<int>("--undeclared"); }));
        QCOMPARE(absent->parser.get<std::string>("--x"), std::string());
        // --help wins over a bad value
        const auto help = parse(opt::integer(1, 9), { "--x", "bad", "--help" });
        QVERIFY(help->ok && help->parser.helpRequested());
        // unknown options are still refused first
        const auto unknown = parse(opt::integer(1, 9), { "--y", "1" });
        QCOMPARE(unknown->error, std::string("unknown option --y"));
    }

    void helpShowsRangesAndDefaults()
    {
        ArgParser p("cmd", "summary", "[options]");
        p.addOption("--threads", "", "T", "threads", "0", opt::integer(0, 1024));
        p.addOption("--steps", "", "N", "steps", {}, opt::integer(1));
        p.addOption("--module", "", "K", "module", "0", opt::integer(0, std::numeric_limits<int>::max()));
        p.addOption("--lr", "", "LR", "learning rate", "1e-3", opt::real(0).excludingMin());
        p.addOption("--dropout", "", "P", "dropout", "0.2", opt::real(0, 1).excludingMax());
        p.addOption("--timeout", "", "S", "timeout", "60", opt::duration(0, 86400));
        p.addOption("--seed", "", "S", "seed", "42", opt::size());
        p.addOption("--fold-seed", "", "S", "fold seed", "123", opt::size(4294967295u));
        p.addOption("--dedup", "", "POLICY", "keep-first or none", "none", opt::oneOf({ "keep-first", "none" }));
        p.addOption("--name", "", "NAME", "a name");
        const QString help = QString::fromStdString(p.help());
        for (const char* line : { "threads (0..1024; default: 0)", "steps (>= 1)\n", "module (>= 0; default: 0)",
                 "learning rate (> 0; default: 1e-3)", "dropout ([0, 1); default: 0.2)",
                 "timeout (0..86400 s; default: 60)", "seed (default: 42)", "fold seed (0..4294967295; default: 123)",
                 "keep-first or none (default: none)", "a name\n" })
            QVERIFY2(help.contains(QLatin1String(line)), qPrintable(line + QString(" in:\n") + help));
    }

    // Numbers do not depend on the locale: under de_DE.UTF-8 (decimal comma) strtod would read
    // "0.001" as 0; the parser reads 0.001 and refuses "0,001".
    void germanLocale()
    {
        // The locale_de_DE fixture compiles de_DE.UTF-8 into the build tree; LOCPATH points there.
        if (!std::setlocale(LC_ALL, "de_DE.UTF-8"))
            QFAIL("de_DE.UTF-8 is not available: run through ctest (fixture locale_de_DE, package `locales`)");
        struct Restore
        {
            ~Restore() { std::setlocale(LC_ALL, "C"); }
        } restore;
        QCOMPARE(std::string(std::localeconv()->decimal_point), std::string(","));
        QCOMPARE(std::strtod("0.001", nullptr), 0.0); // what a locale-dependent reader would get

        ArgParser p("train", "", "");
        p.addOption("--lr", "", "LR", "learning rate", "1e-3", opt::real(0).excludingMin());
        p.addOption("--dropout", "", "P", "dropout", "0.2", opt::real(0, 1).excludingMax());
        p.addOption("--timeout", "", "S", "timeout", "60", opt::duration(0, 86400));
        std::string error;
        QVERIFY2(p.parse({ "--lr", "0.001", "--timeout", "2.5s" }, &error), error.c_str());
        QCOMPARE(p.get<double>("--lr"), 0.001);
        QCOMPARE(p.get<double>("--dropout"), 0.2);
        QCOMPARE(p.get<std::chrono::milliseconds>("--timeout"), std::chrono::milliseconds(2500));
        ArgParser comma("train", "", "");
        comma.addOption("--lr", "", "LR", "learning rate", "1e-3", opt::real(0).excludingMin());
        QVERIFY(!comma.parse({ "--lr", "0,001" }, &error));
        QCOMPARE(error, std::string("--lr '0,001': not a number (allowed: a number > 0)"));
        QVERIFY(QString::fromStdString(p.help()).contains("(> 0; default: 1e-3)"));
    }
};

QTEST_GUILESS_MAIN(TestArgParser)
#include "tst_argparser.moc"
