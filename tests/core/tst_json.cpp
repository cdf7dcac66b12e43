// SPDX-License-Identifier: Apache-2.0
// The JSON layer (core/util/json.h over nlohmann::json): errors naming file, line and column, round
// trips of every value type, int64 and uint64 limits, doubles with 17 significant digits, unicode,
// the refusals (duplicates, nesting), the text the writers produce, and numbers that do not follow
// the C locale. CTest runs this with LC_ALL=de_DE.UTF-8 (compiled into the build tree by the
// locale_de_DE fixture), which QCoreApplication adopts as the studio's QApplication does.

#include "core/sim/simulator.h"
#include "core/synth/synthcollection.h"
#include "core/train/trainingevents.h"
#include "core/util/json.h"
#include "testutil.h"

#include <QtTest>

#include <bit>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace tgraph;

namespace {

bool decimalComma() { return std::strcmp(std::localeconv()->decimal_point, ",") == 0; }

std::string parseErrorOf(std::string_view text, const std::string& file = "f.json", const std::string& place = {})
{
    try {
        (void)parseJson(text, file, place);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(no error)";
}

// Both texts, indented and compact, parse back to the value, members in the same order.
void expectRoundTrip(const Json& value)
{
    for (const bool compact : { false, true }) {
        const std::string text = jsonText(value, compact);
        const Json back = parseJson(text, "round-trip.json");
        QVERIFY2(back == value, text.c_str());
        QCOMPARE(jsonText(back, compact), text);
    }
}

} // namespace

class TestJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        // Under CTest the locale comes from the environment through QCoreApplication; run by hand,
        // switch to it here.
        if (!decimalComma() && !std::setlocale(LC_ALL, "de_DE.UTF-8")) {
            ::setenv("LOCPATH", TGRAPH_BINARY_DIR "/locale", 0); // where the fixture compiles it
            std::setlocale(LC_ALL, "de_DE.UTF-8");
        }
        QVERIFY2(decimalComma(),
            "de_DE.UTF-8 is not available: run through ctest (the locale_de_DE fixture compiles it into "
            "build/locale, LOCPATH) or install the `locales` package");
        char printed[16];
        std::snprintf(printed, sizeof printed, "%.1f", 0.5);
        QCOMPARE(QByteArray(printed), QByteArray("0,5")); // what locale-following code would write
    }

    void parseErrorsNameFileLineAndColumn()
    {
        QString msg = QString::fromStdString(parseErrorOf("{\n  \"a\": 1,\n  \"b\" 2\n}"));
        QVERIFY2(msg.startsWith("f.json: line 3 column 7: "), qPrintable(msg));
        QVERIFY2(msg.contains("expected ':'"), qPrintable(msg));
        // The end of the text is the place of a truncated document.
        msg = QString::fromStdString(parseErrorOf("{\"a\": [1, 2"));
        QVERIFY2(msg.startsWith("f.json: line 1 column 12: "), qPrintable(msg));
        QVERIFY2(msg.contains("end of input"), qPrintable(msg));
        // Text after the value.
        msg = QString::fromStdString(parseErrorOf("[1]\n x"));
        QVERIFY2(msg.startsWith("f.json: line 2 column 2: "), qPrintable(msg));
        // Columns count characters, not bytes.
        msg = QString::fromStdString(parseErrorOf("{\"\xc3\xa9\xc3\xa9\": x}"));
        QVERIFY2(msg.startsWith("f.json: line 1 column 8: "), qPrintable(msg));
        // A place inside the file (an npz member), and no file for callers adding their own context.
        msg = QString::fromStdString(parseErrorOf("{\"model\": 3", "ck.npz", "train.hparams"));
        QVERIFY2(msg.startsWith("ck.npz: train.hparams line 1 column 12: "), qPrintable(msg));
        msg = QString::fromStdString(parseErrorOf("nul", ""));
        QVERIFY2(msg.startsWith("line 1 column "), qPrintable(msg));
        for (const char* bad : { "", "   ", "{", "[1,]", "{\"a\":1,}", "'a'", "[01]", "[1.]", "[.5]", "[-]", "[1e]",
                 "[\"a\nb\"]", "[\"\\x\"]", "[\"\\u12\"]", "[tru]", "[NaN]", "[Infinity]", "/* c */ 1", "1 2" }) {
            msg = QString::fromStdString(parseErrorOf(bad));
            QVERIFY2(msg.startsWith("f.json: line "), qPrintable(QString(bad) + " -> " + msg));
        }
        // Numbers beyond double: named, no position from the library.
        msg = QString::fromStdString(parseErrorOf("[1e999]"));
        QVERIFY2(msg.startsWith("f.json: ") && msg.contains("overflow") && msg.contains("1e999"), qPrintable(msg));
        QVERIFY(!msg.contains("json.exception"));
    }

    void roundTripsEveryValueType()
    {
        Json doc;
        doc["null"] = nullptr;
        doc["true"] = true;
        doc["false"] = false;
        doc["zero"] = 0;
        doc["negative"] = -17;
        doc["int64_min"] = std::numeric_limits<int64_t>::min();
        doc["int64_max"] = std::numeric_limits<int64_t>::max();
        doc["uint64_max"] = std::numeric_limits<uint64_t>::max();
        doc["double"] = 0.1;
        doc["tiny"] = 5e-324;
        doc["huge"] = std::numeric_limits<double>::max();
        doc["negative_zero"] = -0.0;
        doc["string"] = "tab\there \"quoted\" back\\slash /slash \x01\x1f";
        doc["empty_string"] = "";
        doc["empty_array"] = Json::array();
        doc["empty_object"] = Json::object();
        doc["array"] = Json::array({ 1, "two", 3.5, nullptr, Json::array({ Json::object() }) });
        doc["z_first_added"] = 1; // order of addition, not alphabetical
        doc["a_last_added"] = 2;
        doc["nested"]["deeper"]["deepest"] = Json::array({ true });
        expectRoundTrip(doc);
        const Json back = parseJson(jsonText(doc), "f.json");
        std::vector<std::string> keys;
        for (auto it = back.begin(); it != back.end(); ++it)
            keys.push_back(it.key());
        QCOMPARE(keys.front(), std::string("null"));
        QCOMPARE(keys[keys.size() - 3], std::string("z_first_added")); // as added, not sorted
        QCOMPARE(keys.back(), std::string("nested"));
        QVERIFY(std::signbit(back["negative_zero"].get<double>()));
        QCOMPARE(back["uint64_max"].get<uint64_t>(), std::numeric_limits<uint64_t>::max());
        QCOMPARE(back["int64_min"].get<int64_t>(), std::numeric_limits<int64_t>::min());
        for (const char* scalar : { "null", "true", "-1", "2.5", "\"s\"" })
            expectRoundTrip(parseJson(scalar, "f.json"));
    }

    void largeIntegersAreExact()
    {
        const Json v = parseJson(R"({"max": 9223372036854775807, "min": -9223372036854775808,
            "umax": 18446744073709551615, "above": 9223372036854775808, "seed": 12345678901234567890,
            "beyond": 18446744073709551616, "integral": 3.0, "fraction": 3.5, "minus": -1})",
            "f.json");
        QCOMPARE(jsonInteger(v, "max"), std::numeric_limits<int64_t>::max());
        QCOMPARE(jsonInteger(v, "min"), std::numeric_limits<int64_t>::min());
        QCOMPARE(jsonUnsigned(v, "umax"), std::numeric_limits<uint64_t>::max());
        QCOMPARE(jsonUnsigned(v, "above"), uint64_t(9223372036854775808ull));
        QCOMPARE(jsonUnsigned(v, "seed"), uint64_t(12345678901234567890ull)); // beyond 2^53: exact
        QCOMPARE(jsonInteger(v, "integral"), int64_t(3));
        QCOMPARE(jsonUnsigned(v, "integral"), uint64_t(3));
        QCOMPARE(jsonNumber(v, "max"), 9223372036854775807.0);
        auto refused = [&](auto read, const char* key, const char* problem) {
            try {
                read(v, key);
            } catch (const std::runtime_error& e) {
                QVERIFY2(QString(e.what()).contains(problem) && QString(e.what()).contains(key), e.what());
                return;
            }
            QFAIL(qPrintable(QString("no error reading ") + key));
        };
        refused(jsonInteger, "above", "out of range");
        refused(jsonInteger, "umax", "out of range");
        refused(jsonUnsigned, "beyond", "out of range");
        refused(jsonInteger, "fraction", "not an integer");
        refused(jsonUnsigned, "minus", "negative");
        // The text keeps every digit.
        QCOMPARE(jsonText(v["umax"]), std::string("18446744073709551615"));
        QCOMPARE(jsonText(v["min"]), std::string("-9223372036854775808"));
    }

    void doublesRoundTripWith17SignificantDigits()
    {
        // Texts with 17 significant digits read as the nearest double, as strtod does in "C".
        const std::vector<std::string> texts { "0.10000000000000001", "2.2250738585072014e-308",
            "1.7976931348623157e+308", "4.9406564584124654e-324", "0.33333333333333331", "123456789012345.67",
            "9007199254740993" };
        std::vector<double> expected;
        const std::string saved = std::setlocale(LC_NUMERIC, nullptr);
        std::setlocale(LC_NUMERIC, "C");
        for (const std::string& text : texts)
            expected.push_back(std::strtod(text.c_str(), nullptr));
        std::setlocale(LC_NUMERIC, saved.c_str());
        QVERIFY(decimalComma());
        for (size_t i = 0; i < texts.size(); ++i) {
            const double got = jsonNumberValue(parseJson("[" + texts[i] + "]", "f.json")[0], "item");
            QVERIFY2(std::bit_cast<uint64_t>(got) == std::bit_cast<uint64_t>(expected[i]), texts[i].c_str());
        }
        // Random bit patterns: every finite double comes back bit for bit.
        std::mt19937_64 random(20240611);
        Json values = Json::array();
        std::vector<double> doubles;
        while (doubles.size() < 20000) {
            const double d = std::bit_cast<double>(random());
            if (!std::isfinite(d))
                continue;
            doubles.push_back(d);
            values.push_back(d);
        }
        for (const double d : { 0.001, 1e-05, 0.1, 1.0 / 3.0, 2.0 / 3.0, 1e21, 1e-7, 6.02214076e23 }) {
            doubles.push_back(d);
            values.push_back(d);
        }
        const Json back = parseJson(jsonText(values, true), "f.json");
        QCOMPARE(back.size(), doubles.size());
        for (size_t i = 0; i < doubles.size(); ++i)
            QVERIFY2(std::bit_cast<uint64_t>(back[i].get<double>()) == std::bit_cast<uint64_t>(doubles[i]),
                qPrintable(QString::number(doubles[i], 'g', 17)));
    }

    void writtenTextIsTheDocumentedFormat()
    {
        Json doc;
        doc["a"] = 1;
        doc["b"] = Json::array({ true, nullptr });
        doc["c"] = Json::object();
        doc["d"] = Json::array();
        doc["e"]["f"] = "g";
        QCOMPARE(jsonText(doc),
            std::string("{\n  \"a\": 1,\n  \"b\": [\n    true,\n    null\n  ],\n  \"c\": {},\n  \"d\": [],\n"
                        "  \"e\": {\n    \"f\": \"g\"\n  }\n}"));
        QCOMPARE(jsonText(doc, true), std::string(R"({"a":1,"b":[true,null],"c":{},"d":[],"e":{"f":"g"}})"));
        // Numbers: shortest round trip, an integral double keeps ".0", non-finite values are null.
        const Json numbers = Json::array({ 0.001, 1e-05, 0.1, 3.0, 1e20, 2.5e-7, int64_t(-3), uint64_t(7), std::nan(""),
            std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), double(0.1f) });
        QCOMPARE(jsonText(numbers, true),
            std::string("[0.001,1e-05,0.1,3.0,1e+20,2.5e-07,-3,7,null,null,null,0.10000000149011612]"));
        // Strings: escapes of quote, backslash and control characters; UTF-8 passes as it is;
        // invalid UTF-8 becomes U+FFFD instead of making the file unreadable.
        QCOMPARE(
            jsonText(Json("q\"b\\n\nt\tc\x01 \xc3\xa9 /")), std::string("\"q\\\"b\\\\n\\nt\\tc\\u0001 \xc3\xa9 /\""));
        QCOMPARE(jsonText(Json(std::string("a\xff"
                                           "b"))),
            std::string("\"a\xef\xbf\xbd"
                        "b\""));
    }

    void unicodeEscapesAndBytes()
    {
        const Json v = parseJson(R"(["\u00e9", "\ud83d\ude00", "\u0000x", "é😀"])", "f.json");
        QCOMPARE(v[0].get<std::string>(), std::string("\xc3\xa9"));
        QCOMPARE(v[1].get<std::string>(), std::string("\xf0\x9f\x98\x80"));
        QCOMPARE(v[2].get<std::string>(), std::string("\0x", 2));
        QCOMPARE(v[3].get<std::string>(), v[0].get<std::string>() + v[1].get<std::string>());
        expectRoundTrip(v);
        // Lone surrogates and bytes that are not UTF-8 are refused with their place.
        for (const char* bad : { R"(["\ud800"])", R"(["\udc00x"])", "[\"\xff\"]", "[\"\xc3\"]" }) {
            const QString msg = QString::fromStdString(parseErrorOf(bad));
            QVERIFY2(msg.startsWith("f.json: line 1 column "), qPrintable(msg));
        }
    }

    void nestingAndDuplicatesAreRefused()
    {
        const auto nested = [](int depth) { return std::string(size_t(depth), '[') + std::string(size_t(depth), ']'); };
        QCOMPARE(jsonText(parseJson(nested(kJsonMaxDepth), "f.json"), true), nested(kJsonMaxDepth));
        QString msg = QString::fromStdString(parseErrorOf(nested(kJsonMaxDepth + 1)));
        QVERIFY2(msg == "f.json: nesting deeper than 256 levels", qPrintable(msg));
        // Hostile depth: refused at once, no stack exhaustion.
        msg = QString::fromStdString(parseErrorOf(std::string(1 << 20, '[')));
        QVERIFY2(msg.contains("nesting deeper"), qPrintable(msg));
        std::string objects;
        for (int i = 0; i < 300; ++i)
            objects += "{\"k\":";
        msg = QString::fromStdString(parseErrorOf(objects + "1" + std::string(300, '}')));
        QVERIFY2(msg == "f.json: nesting deeper than 256 levels", qPrintable(msg));

        msg = QString::fromStdString(
            parseErrorOf(R"({"lr": 1, "model": {"a": 1}, "lr": 2})", "h.json", "train.hparams"));
        QVERIFY2(msg == "h.json: train.hparams: duplicate member \"lr\"", qPrintable(msg));
        // The same name in different objects is fine.
        const Json v = parseJson(R"([{"a": 1}, {"a": 2, "b": {"a": 3}}])", "f.json");
        QCOMPARE(v[1]["b"]["a"].get<int>(), 3);
    }

    void typedReadsNameTheMember()
    {
        const Json v = parseJson(R"({"s": "x", "n": 1.5, "b": true, "a": [1], "o": {}, "z": null})", "f.json");
        QCOMPARE(jsonString(v, "s"), std::string("x"));
        QCOMPARE(jsonNumber(v, "n"), 1.5);
        QCOMPARE(jsonBool(v, "b"), true);
        QCOMPARE(jsonArray(v, "a").size(), size_t(1));
        QVERIFY(jsonObject(v, "o").empty());
        auto problem = [&](auto read, const char* key) -> QString {
            try {
                read(v, key);
            } catch (const std::runtime_error& e) {
                return e.what();
            }
            return "(no error)";
        };
        QCOMPARE(problem(jsonNumber, "s"), QString("member \"s\" is a string, expected a number"));
        QCOMPARE(problem(jsonString, "n"), QString("member \"n\" is a number, expected a string"));
        QCOMPARE(problem(jsonBool, "z"), QString("member \"z\" is null, expected a boolean"));
        QCOMPARE(problem(jsonArray, "o"), QString("member \"o\" is an object, expected an array"));
        QCOMPARE(problem(jsonObject, "a"), QString("member \"a\" is an array, expected an object"));
        QCOMPARE(problem(jsonInteger, "missing"), QString("has no member \"missing\""));
        QCOMPARE(problem([](const Json& j, const char* k) { return jsonString(j["a"], k); }, "s"),
            QString("the value is an array, expected an object with member \"s\""));
    }

    // The process runs under de_DE.UTF-8 (initTestCase): what our producers write and read must not
    // use its decimal comma, and switching locales mid-process changes nothing.
    void numbersDoNotFollowTheLocale()
    {
        QVERIFY(decimalComma());
        for (const char* locale : { "de_DE.UTF-8", "C", "de_DE.UTF-8" }) {
            QVERIFY(std::setlocale(LC_ALL, locale));
            const Json values = Json::array({ 0.5, 1e-05, 0.001, 2.5e10, -1234.5678 });
            const std::string text = jsonText(values, true);
            QCOMPARE(text, std::string("[0.5,1e-05,0.001,25000000000.0,-1234.5678]"));
            QVERIFY(parseJson(text, "f.json") == values);
            QCOMPARE(jsonNumber(parseJson(R"({"lr": 0.001})", "f.json"), "lr"), 0.001);
        }
        QVERIFY(decimalComma());

        // The project's own writers.
        StepMetrics step;
        step.step = 3;
        step.epoch = 0.5;
        step.loss = 1.25;
        step.learningRate = 0.001;
        const Json line = parseJson(JsonLinesTrainingSink::toJson(step), "metrics.jsonl");
        QCOMPARE(jsonNumber(line, "lr"), 0.001);
        QCOMPARE(jsonNumber(line, "epoch"), 0.5);
        QVERIFY(JsonLinesTrainingSink::toJson(step).find("\"lr\":0.001,") != std::string::npos);
        SimulatorParams params;
        params.noiseSigma = 0.004;
        params.vmemBytes = 16777216.0;
        const std::string meta = syntheticMetaJson("tgraph synth", "mlp", "default", 12345678901234567890ull, params);
        QVERIFY2(meta.find("\"noiseSigma\": 0.004,") != std::string::npos, meta.c_str());
        const Json parsed = parseJson(meta, "meta_synthetic");
        QCOMPARE(jsonUnsigned(parsed, "seed"), uint64_t(12345678901234567890ull));
        QCOMPARE(jsonNumber(jsonObject(parsed, "simulator"), "vmemBytes"), 16777216.0);
        QCOMPARE(jsonNumber(jsonObject(parsed, "simulator"), "matrixFlops"), params.matrixFlops);
    }
};

QTEST_GUILESS_MAIN(TestJson)
#include "tst_json.moc"
