// SPDX-License-Identifier: Apache-2.0
#include "core/hlo/hlotext.h"

#include "core/hlo/featurizer.h"
#include "core/hlo/hloinfer.h"
#include "core/hlo/hloverify.h"
#include "core/io/filebytes.h"
#include "core/util/error.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>

namespace tgraph {

namespace {

constexpr int kMaxDepth = 200; // nesting of shapes and attribute values

// Character classes, one table lookup each.
enum CharClass : uint8_t {
    kAlpha = 1,
    kDigit = 2,
    kIdentPunct = 4, // '_' '.' '-'
    kSpace = 8,
    kValueSpecial = 16, // characters scanValue must look at: quotes, brackets, ',', '/', spaces
};
struct CharTable
{
    uint8_t c[256] = {};
    constexpr CharTable()
    {
        for (int i = 'a'; i <= 'z'; ++i)
            c[i] |= kAlpha;
        for (int i = 'A'; i <= 'Z'; ++i)
            c[i] |= kAlpha;
        for (int i = '0'; i <= '9'; ++i)
            c[i] |= kDigit;
        for (char p : { '_', '.', '-' })
            c[uint8_t(p)] |= kIdentPunct;
        for (char p : { ' ', '\t', '\n', '\r', '\f', '\v' })
            c[uint8_t(p)] |= kSpace | kValueSpecial;
        for (char p : { '"', '\'', '(', ')', '[', ']', '{', '}', ',', '/' })
            c[uint8_t(p)] |= kValueSpecial;
    }
};
constexpr CharTable kChars;
inline uint8_t charClass(char c) { return kChars.c[uint8_t(c)]; }
bool isAlpha(char c) { return charClass(c) & kAlpha; }
bool isDigit(char c) { return charClass(c) & kDigit; }
bool isIdentStart(char c) { return (charClass(c) & kAlpha) || c == '_'; }
bool isIdentChar(char c) { return charClass(c) & (kAlpha | kDigit | kIdentPunct); }
bool isSpace(char c) { return charClass(c) & kSpace; }

// Attributes naming called computations, in the order XLA lists called_computation_ids.
enum CallSlot {
    Body,
    Condition,
    Select,
    Scatter,
    TrueBranch,
    FalseBranch,
    Branches,
    Calls,
    ToApply,
    Called,
    SlotCount
};
int callSlot(std::string_view attribute)
{
    static const std::unordered_map<std::string_view, int> slots = {
        { "body", Body },
        { "condition", Condition },
        { "select", Select },
        { "scatter", Scatter },
        { "true_computation", TrueBranch },
        { "false_computation", FalseBranch },
        { "branch_computations", Branches },
        { "calls", Calls },
        { "to_apply", ToApply },
        { "called_computations", Called },
    };
    auto it = slots.find(attribute);
    return it == slots.end() ? -1 : it->second;
}

// Skips whitespace and comments from `i`: the position of the next token, text.size() at the end,
// npos inside a /* comment that is never closed.
size_t skipSpaceAndComments(std::string_view text, size_t i)
{
    while (i < text.size()) {
        const char c = text[i];
        if (isSpace(c)) {
            ++i;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
            const size_t nl = text.find('\n', i);
            i = nl == std::string_view::npos ? text.size() : nl + 1;
        } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
            const size_t end = text.find("*/", i + 2);
            if (end == std::string_view::npos)
                return std::string_view::npos;
            i = end + 2;
        } else {
            break;
        }
    }
    return i;
}

// True when `text` starts, after whitespace and comments, a module without its `HloModule` line as
// XLA's parser accepts one (docs/formats.md §8.2): with the keyword ENTRY, or with a name followed
// by '{' (a computation written without a signature).
bool startsHeaderlessModule(std::string_view text)
{
    size_t i = skipSpaceAndComments(text, 0);
    if (i >= text.size())
        return false;
    const size_t start = i;
    if (text[i] == '%')
        ++i;
    if (i >= text.size() || !(isIdentStart(text[i]) || (i > start && isDigit(text[i]))))
        return false;
    size_t end = i;
    while (end < text.size() && isIdentChar(text[end]) && text.compare(end, 2, "->") != 0)
        ++end;
    if (i == start && text.substr(i, end - i) == "ENTRY")
        return true;
    const size_t next = skipSpaceAndComments(text, end);
    return next < text.size() && text[next] == '{';
}

// A line that separates modules: `// -----`, with nothing else but spaces and tabs around it.
bool isSeparatorLine(std::string_view line)
{
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
    if (line.compare(i, kHloModuleSeparator.size(), kHloModuleSeparator) != 0)
        return false;
    i += kHloModuleSeparator.size();
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
        ++i;
    return i == line.size();
}

struct NameRef
{
    uint32_t intsIndex; // where the resolved id goes in HloModule::ints
    std::string_view name;
    size_t pos;
};

class TextParser
{
public:
    // Parses text[part.begin, part.end): one module of a file, whose positions are reported as
    // positions in the whole file.
    TextParser(std::string_view text, const HloTextPart& part, const std::string& file, const HloTextOptions& options)
        : m_text(text.substr(0, part.end))
        , m_file(file)
        , m_options(options)
        , m_pos(part.begin)
        , m_basePos(part.begin)
        , m_baseLine(part.firstLine)
        , m_cachePos(part.begin)
        , m_cacheLine(part.firstLine)
        , m_cacheLineStart(part.begin)
    { }

    HloModule parse()
    {
        const size_t estimate = (m_text.size() - m_basePos) / 96 + 16; // instructions, from typical dump line lengths
        m.reserveFor(estimate);
        m_names.reserve(estimate);
        parseHeader();
        skipStackFrames();
        while (peek() != '\0')
            parseComputation();
        if (m.computations.empty())
            failAt(m_pos, "the module has no computations");
        for (const NameRef& ref : m_calls) {
            auto it = m_computationIndex.find(ref.name);
            if (it == m_computationIndex.end())
                failAt(ref.pos, "called computation '" + std::string(ref.name) + "' does not exist");
            m.ints[ref.intsIndex] = m.computations[it->second].id;
        }
        const size_t entry = m_entry >= 0 ? size_t(m_entry) : m.computations.size() - 1;
        m.entryComputationName = m.computations[entry].name;
        m.entryComputationId = m.computations[entry].id;
        if (m_headerless) // XLA's parser names such a module after its entry computation
            m.name = m.intern("module_" + std::string(m.entryComputationName));
        m.format = HloSourceFormat::Text;
        verifyHloModule(m, m_file);
        return std::move(m);
    }

private:
    // ---- positions and errors -----------------------------------------------------------------
    void lineColumn(size_t pos, uint32_t& line, uint32_t& column)
    {
        if (pos < m_cachePos) {
            m_cachePos = m_basePos;
            m_cacheLine = m_baseLine;
            m_cacheLineStart = m_basePos;
        }
        for (size_t i = m_cachePos; i < pos; ++i) {
            const void* nl = std::memchr(m_text.data() + i, '\n', pos - i);
            if (!nl)
                break;
            i = size_t(static_cast<const char*>(nl) - m_text.data());
            ++m_cacheLine;
            m_cacheLineStart = i + 1;
        }
        m_cachePos = pos;
        line = m_cacheLine;
        column = uint32_t(pos - m_cacheLineStart + 1);
    }

    std::string where(size_t pos)
    {
        uint32_t line, column;
        lineColumn(std::min(pos, m_text.size()), line, column);
        return "line " + std::to_string(line) + ", column " + std::to_string(column);
    }

    [[noreturn]] void failAt(size_t pos, const std::string& problem) { throw InputError(m_file, where(pos), problem); }

    // ---- characters ---------------------------------------------------------------------------
    void skip()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (isSpace(c)) {
                ++m_pos;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '*') {
                const size_t end = m_text.find("*/", m_pos + 2);
                if (end == std::string_view::npos)
                    failAt(m_pos, "unterminated /* comment");
                m_pos = end + 2;
            } else if (c == '/' && m_pos + 1 < m_text.size() && m_text[m_pos + 1] == '/') {
                const size_t end = m_text.find('\n', m_pos);
                m_pos = end == std::string_view::npos ? m_text.size() : end + 1;
            } else {
                break;
            }
        }
    }

    char peek()
    {
        skip();
        return m_pos < m_text.size() ? m_text[m_pos] : '\0';
    }

    char peekAt(size_t pos) const { return pos < m_text.size() ? m_text[pos] : '\0'; }

    bool consume(char c)
    {
        if (peek() != c)
            return false;
        ++m_pos;
        return true;
    }

    void expect(char c, const char* context)
    {
        if (!consume(c)) {
            const char got = peek();
            failAt(m_pos,
                std::string("expected '") + c + "' " + context + ", found "
                    + (got ? "'" + std::string(1, got) + "'" : std::string("end of file")));
        }
    }

    bool consumeKeyword(std::string_view keyword)
    {
        skip();
        if (m_pos >= m_text.size() || m_text[m_pos] != keyword.front())
            return false;
        if (m_text.compare(m_pos, keyword.size(), keyword) != 0 || isIdentChar(peekAt(m_pos + keyword.size())))
            return false;
        m_pos += keyword.size();
        return true;
    }

    size_t identifierEnd(size_t pos) const
    {
        while (pos < m_text.size() && isIdentChar(m_text[pos]) && !(m_text[pos] == '-' && peekAt(pos + 1) == '>'))
            ++pos;
        return pos;
    }

    std::string_view identifier(const char* what)
    {
        skip();
        const size_t start = m_pos;
        bool percent = false;
        if (peekAt(m_pos) == '%') {
            percent = true;
            ++m_pos;
        }
        const char c = peekAt(m_pos);
        if (!(isIdentStart(c) || (percent && isDigit(c))))
            failAt(start, std::string("expected ") + what);
        const size_t end = identifierEnd(m_pos);
        const std::string_view name = m_text.substr(m_pos, end - m_pos);
        m_pos = end;
        return name;
    }

    int64_t integer(const char* what)
    {
        skip();
        const size_t start = m_pos;
        bool negative = false;
        if (peekAt(m_pos) == '-') {
            negative = true;
            ++m_pos;
        }
        if (!isDigit(peekAt(m_pos)))
            failAt(start, std::string("expected ") + what);
        uint64_t v = 0;
        while (isDigit(peekAt(m_pos))) {
            const uint64_t d = uint64_t(m_text[m_pos++] - '0');
            if (v > (uint64_t(INT64_MAX) - d) / 10)
                failAt(start, std::string(what) + " does not fit in 64 bits");
            v = v * 10 + d;
        }
        return negative ? -int64_t(v) : int64_t(v);
    }

    // At a quote: moves past the closing quote; returns the string with its quotes.
    std::string_view scanString()
    {
        const size_t start = m_pos;
        const char quote = m_text[m_pos++];
        for (;;) {
            while (m_pos < m_text.size() && m_text[m_pos] != quote && m_text[m_pos] != '\\')
                ++m_pos;
            if (m_pos >= m_text.size())
                failAt(start, "unterminated string");
            if (m_text[m_pos++] == quote)
                break;
            ++m_pos; // the escaped character
        }
        if (m_pos > m_text.size())
            failAt(start, "unterminated string");
        return m_text.substr(start, m_pos - start);
    }

    // One attribute value: a string, or text with balanced () [] {} (string- and comment-aware)
    // up to a ',' or whitespace at depth 0, or an unopened closer.
    std::string_view scanValue()
    {
        skip();
        const size_t start = m_pos;
        if (peekAt(m_pos) == '"' || peekAt(m_pos) == '\'')
            return scanString();
        std::pair<char, size_t> openStack[kMaxDepth]; // expected closer, position of the opener
        size_t depth = 0;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (!(charClass(c) & kValueSpecial)) {
                ++m_pos;
                continue;
            }
            if (c == '"' || c == '\'') {
                scanString();
                continue;
            }
            if (c == '/' && peekAt(m_pos + 1) == '*') {
                const size_t end = m_text.find("*/", m_pos + 2);
                if (end == std::string_view::npos)
                    failAt(m_pos, "unterminated /* comment");
                m_pos = end + 2;
                continue;
            }
            if (c == '(' || c == '[' || c == '{') {
                if (depth >= size_t(kMaxDepth))
                    failAt(m_pos, "attribute value nested deeper than " + std::to_string(kMaxDepth) + " levels");
                openStack[depth++] = { c == '(' ? ')' : c == '[' ? ']' : '}', m_pos };
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth == 0)
                    break;
                const auto& top = openStack[depth - 1];
                if (c != top.first)
                    failAt(m_pos,
                        std::string("unbalanced '") + c + "': the bracket opened at " + where(top.second) + " expects '"
                            + top.first + "'");
                --depth;
            } else if (depth == 0 && (c == ',' || isSpace(c))) {
                break;
            }
            ++m_pos;
        }
        if (depth)
            failAt(openStack[depth - 1].second,
                std::string("unbalanced '") + m_text[openStack[depth - 1].second] + "': never closed");
        if (m_pos == start)
            failAt(start, "expected an attribute value");
        return m_text.substr(start, m_pos - start);
    }

    // ---- module structure ---------------------------------------------------------------------
    void parseHeader()
    {
        if (!consumeKeyword("HloModule")) {
            // Without its header line XLA's parser takes a module that starts with ENTRY or with a
            // computation written without a signature, `NAME {` (docs/formats.md §8.2).
            if (!startsHeaderlessModule(m_text.substr(m_pos)))
                failAt(m_pos,
                    "expected 'HloModule' at the start of an HLO text module (without that line XLA's parser "
                    "accepts a module only when it starts with 'ENTRY' or with a computation 'NAME {')");
            m_headerless = true;
            return;
        }
        m.name = m.intern(identifier("a module name"));
        while (consume(',')) {
            identifier("a module attribute name");
            expect('=', "after a module attribute name");
            scanValue();
        }
    }

    // Newest dumps put FileNames / FunctionNames / FileLocations / StackFrames tables before the
    // first computation: `KEYWORD` then entries `N "text"` or `N {...}`.
    void skipStackFrames()
    {
        for (;;) {
            if (!(consumeKeyword("FileNames") || consumeKeyword("FunctionNames") || consumeKeyword("FileLocations")
                    || consumeKeyword("StackFrames")))
                return;
            while (isDigit(peek())) {
                integer("a table index");
                scanValue();
            }
        }
    }

    // Shapes are appended to HloModule::shapes; tuple elements first, contiguously.
    HloShape shapeValue(int depth, bool signature)
    {
        if (depth > kMaxDepth)
            failAt(m_pos, "shape nested deeper than " + std::to_string(kMaxDepth) + " levels");
        HloShape s;
        if (consume('(')) {
            std::vector<HloShape> elements;
            if (!consume(')')) {
                for (;;) {
                    elements.push_back(shapeValue(depth + 1, false));
                    if (consume(','))
                        continue;
                    expect(')', "to close a tuple shape");
                    break;
                }
            }
            s.elementType = PrimitiveType::Tuple;
            s.firstTupleShape = uint32_t(m.shapes.size());
            s.tupleCount = uint32_t(elements.size());
            m.shapes.insert(m.shapes.end(), elements.begin(), elements.end());
            return s;
        }
        const size_t typePos = m_pos;
        const std::string_view type = identifier("a shape");
        if (type == "b" && peekAt(m_pos) == '(') { // buffer type b(shape)
            ++m_pos;
            s = shapeValue(depth + 1, false);
            expect(')', "to close a buffer type");
            s.elementType = PrimitiveType::Buffer;
            return s;
        }
        s.elementType = primitiveTypeFromName(type);
        if (s.elementType < 0 || s.elementType == PrimitiveType::Tuple)
            failAt(typePos, "unknown element type '" + std::string(type) + "'");
        expect('[', "after an element type");
        int64_t dims[64];
        size_t rank = 0;
        if (!consume(']')) {
            for (;;) {
                if (rank == 64)
                    failAt(m_pos, "more than 64 dimensions");
                skip();
                if (m_text.compare(m_pos, 2, "<=") == 0) {
                    m_pos += 2;
                    dims[rank++] = integer("a dimension bound");
                } else if (peekAt(m_pos) == '?') {
                    ++m_pos;
                    dims[rank++] = 0;
                    if (m.warnings.size() < 20)
                        m.warnings.push_back(where(m_pos) + ": unbounded dynamic dimension '?' featurized as 0");
                } else {
                    const size_t dimPos = m_pos;
                    dims[rank++] = integer("a dimension size");
                    if (dims[rank - 1] < 0)
                        failAt(dimPos, "negative dimension size");
                }
                if (consume(','))
                    continue;
                expect(']', "to close the dimensions");
                break;
            }
        }
        s.dims = m.addInts({ dims, rank });
        int64_t layout[64];
        size_t layoutSize = 0;
        bool hasLayout = false;
        if (peek() == '{') {
            // After a signature shape '{' opens the body unless a layout follows (int or ':').
            size_t look = m_pos + 1;
            while (look < m_text.size() && isSpace(m_text[look]))
                ++look;
            const char next = peekAt(look);
            if (!signature || isDigit(next) || next == ':') {
                const size_t layoutPos = m_pos;
                ++m_pos;
                hasLayout = true;
                if (peek() != '}' && peek() != ':') {
                    for (;;) {
                        if (layoutSize == 64)
                            failAt(m_pos, "layout has more than 64 entries");
                        layout[layoutSize++] = integer("a layout dimension");
                        if (!consume(','))
                            break;
                    }
                }
                if (consume(':'))
                    skipLayoutItems();
                expect('}', "to close a layout");
                if (layoutSize != rank && !(layoutSize == 0 && rank == 0))
                    failAt(layoutPos,
                        "layout has " + std::to_string(layoutSize) + " entries for a rank-" + std::to_string(rank)
                            + " shape");
            }
        }
        if (!hasLayout && rank > 0 && s.elementType != PrimitiveType::Token
            && s.elementType != PrimitiveType::OpaqueType) {
            for (size_t k = 0; k < rank; ++k) // XLA's default: descending minor-to-major
                layout[k] = int64_t(rank - 1 - k);
            layoutSize = rank;
            hasLayout = true;
        }
        s.hasLayout = hasLayout;
        s.minorToMajor = m.addInts({ layout, layoutSize });
        return s;
    }

    // The part after ':' of a layout (tiles, memory space, element size ...): skipped, balanced.
    void skipLayoutItems()
    {
        int depth = 0;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '(' || c == '{' || c == '[') {
                if (++depth > kMaxDepth)
                    failAt(m_pos, "layout nested deeper than " + std::to_string(kMaxDepth) + " levels");
            } else if (c == ')' || c == ']' || (c == '}' && depth > 0)) {
                --depth;
            } else if (c == '}') {
                return;
            }
            ++m_pos;
        }
        failAt(m_pos, "unterminated layout");
    }

    uint32_t parseShape(bool signature)
    {
        HloShape s = shapeValue(0, signature);
        m.shapes.push_back(s);
        return uint32_t(m.shapes.size() - 1);
    }

    bool startsShape()
    {
        const char c = peek();
        if (c == '(')
            return true;
        if (!isIdentStart(c))
            return false;
        const size_t end = identifierEnd(m_pos);
        const std::string_view word = m_text.substr(m_pos, end - m_pos);
        if (word == "b" && peekAt(end) == '(')
            return true;
        if (peekAt(end) == '[')
            return true; // an element type (unknown ones are reported by shapeValue)
        if (!isSpace(peekAt(end)))
            return false;
        // XLA's lexer also reads an element type and its '[' apart: `s32 [4]`.
        size_t next = end;
        while (isSpace(peekAt(next)))
            ++next;
        return peekAt(next) == '[' && primitiveTypeFromName(word) >= 0;
    }

    void parseComputation()
    {
        skip();
        const size_t start = m_pos;
        const bool entry = consumeKeyword("ENTRY");
        const size_t namePos = m_pos;
        const std::string_view name = identifier("a computation name (or ENTRY)");
        if (name == "HloModule" && !entry)
            failAt(namePos,
                "a second 'HloModule' line: the modules of one file must be separated by a line '"
                    + std::string(kHloModuleSeparator) + "'");
        if (m_computationIndex.count(name))
            failAt(namePos, "duplicate computation name '" + std::string(name) + "'");
        if (entry) {
            if (m_entry >= 0)
                failAt(start, "a second ENTRY computation");
            m_entry = int64_t(m.computations.size());
        }
        const size_t shapesBefore = m.shapes.size();
        const size_t intsBefore = m.ints.size();
        if (consume('(')) { // signature: (p: shape, ...) -> shape; not instructions
            if (!consume(')')) {
                for (;;) {
                    identifier("a parameter name");
                    expect(':', "after a parameter name");
                    parseShape(true);
                    if (consume(','))
                        continue;
                    expect(')', "to close the parameter list");
                    break;
                }
            }
            skip();
            if (m_text.compare(m_pos, 2, "->") != 0)
                failAt(m_pos, "expected '->' after the parameter list");
            m_pos += 2;
            parseShape(true);
        }
        m.shapes.resize(shapesBefore);
        m.ints.resize(intsBefore);

        const size_t bodyPos = m_pos;
        expect('{', "to open the computation body");
        HloComputation comp;
        comp.name = m.intern(name);
        comp.id = int64_t(m.computations.size());
        comp.firstInstruction = uint32_t(m.instructions.size());
        uint32_t line, column;
        lineColumn(start, line, column);
        comp.line = line;
        m_names.clear();
        m_operands.clear();
        int64_t root = -1;
        while (peek() != '}') {
            if (m_pos >= m_text.size())
                failAt(bodyPos, "unbalanced '{': the body of computation '" + std::string(name) + "' is never closed");
            if (parseInstruction())
                root = int64_t(m.instructions.size()) - 1;
            if (m_sawSecondRoot)
                failAt(m_rootPos, "a second ROOT instruction in computation '" + std::string(name) + "'");
        }
        ++m_pos;
        m_rootSeen = false;
        comp.instructionCount = uint32_t(m.instructions.size() - comp.firstInstruction);
        if (comp.instructionCount == 0)
            failAt(bodyPos, "computation '" + std::string(name) + "' has no instructions");
        while (consume(',')) {
            const std::string_view attr = identifier("a computation attribute");
            expect('=', "after a computation attribute");
            std::string_view value = scanValue();
            if (attr == "execution_thread") {
                if (value.size() >= 2 && (value.front() == '"' || value.front() == '\''))
                    value = value.substr(1, value.size() - 2);
                comp.executionThread = m.intern(value);
            }
        }
        // Operands name instructions of this computation. They are resolved here, once the whole
        // body is read, so that a forward reference gets verifyHloModule's message (docs/formats.md §8.6).
        for (const NameRef& ref : m_operands) {
            auto it = m_names.find(ref.name);
            if (it == m_names.end())
                failAt(ref.pos,
                    "operand '" + std::string(ref.name) + "' is not an instruction of computation '" + std::string(name)
                        + "'");
            m.ints[ref.intsIndex] = m.instructions[it->second].id;
        }
        const size_t rootIndex = root >= 0 ? size_t(root) : m.instructions.size() - 1;
        comp.rootId = m.instructions[rootIndex].id;
        m_computationIndex.emplace(comp.name, m.computations.size());
        m.computations.push_back(comp);
    }

    // Returns true for a ROOT instruction.
    bool parseInstruction()
    {
        skip();
        const size_t start = m_pos;
        const bool isRoot = consumeKeyword(std::string_view("ROOT", 4));
        if (isRoot) {
            if (m_rootSeen) {
                m_sawSecondRoot = true;
                m_rootPos = start;
            }
            m_rootSeen = true;
        }
        const size_t namePos = m_pos;
        const std::string_view name = identifier("an instruction name");
        expect('=', "after the instruction name");
        parseInstructionRhs(name, namePos, start, 0);
        return isRoot;
    }

    // What follows `NAME =`: [shape] opcode(operands) (, attribute=value)*; or, with `name` empty, an
    // instruction written as an operand (docs/formats.md §8.7), `depth` levels down, which takes no
    // attributes and gets the name XLA gives it. The shape, when not written, is inferred as XLA's
    // parser infers it. The instruction is appended after those written inside its operand list;
    // returns its position.
    uint32_t parseInstructionRhs(std::string_view name, size_t namePos, size_t start, int depth)
    {
        const bool inlined = name.empty();
        const bool printed = startsShape();
        HloInstruction inst;
        if (printed)
            inst.shape = parseShape(false);
        skip();
        const size_t opcodePos = m_pos;
        const std::string_view opcode = identifier(printed ? "an opcode" : "a shape or an opcode");
        inst.opcode = internOpcode(opcode);
        if (!printed && !canInferHloShape(opcode))
            failAt(opcodePos,
                "the shape of " + describe(name, opcode) + " must be written: XLA's parser infers no shape for "
                    + std::string(opcode) + " (docs/formats.md §8.7)");
        uint32_t line, column;
        lineColumn(start, line, column);
        inst.line = line;
        inst.column = column;
        expect('(', "after the opcode");
        const size_t refsBegin = parseOperands(inst, opcode, opcodePos, depth);
        m_details = HloInstructionDetails();
        m_hasDetails = false;
        m_dot = HloDotDims();
        m_hasDot = false;
        m_sawDimensions = false;
        if (!printed)
            m_rawAttributes.clear();
        std::vector<NameRef> called[SlotCount];
        if (inlined) {
            checkInlineAttributes(inst, opcode, start, refsBegin);
        } else {
            while (consume(',')) {
                const size_t attrPos = m_pos;
                const std::string_view attr = identifier("an attribute name");
                expect('=', "after an attribute name");
                const size_t valuePos = m_pos;
                const std::string_view value = scanValue();
                applyAttribute(inst, attr, value, attrPos, valuePos, called);
                if (!printed)
                    m_rawAttributes.push_back({ attr, value });
            }
        }
        if (!printed)
            inst.shape = inferShape(inst, opcode, name, start, refsBegin, called);
        applyDefaults(inst, opcode);
        // Called computations in XLA's order (docs/formats.md §2.2): while = body, condition, etc.
        size_t count = 0;
        for (const auto& slot : called)
            count += slot.size();
        if (count) {
            inst.calledComputationIds.offset = uint32_t(m.ints.size());
            inst.calledComputationIds.count = uint32_t(count);
            for (const auto& slot : called) {
                for (const NameRef& ref : slot) {
                    m_calls.push_back({ uint32_t(m.ints.size()), ref.name, ref.pos });
                    m.ints.push_back(-1);
                }
            }
        }
        if (m_hasDot) {
            m_details.dotDims = int32_t(m.dotDims.size());
            m.dotDims.push_back(m_dot);
            setDetails();
        }
        if (m_hasDetails) {
            inst.details = int32_t(m.details.size());
            m.details.push_back(m_details);
        }
        const uint32_t position = uint32_t(m.instructions.size());
        inst.name = inlined ? generatedName(opcode) : name;
        if (!m_names.emplace(inst.name, position).second)
            failAt(inlined ? start : namePos, "duplicate instruction name '" + std::string(inst.name) + "'");
        if (!inlined)
            inst.name = m.intern(name);
        inst.id = int64_t(position);
        m.instructions.push_back(inst);
        return position;
    }

    static std::string describe(std::string_view name, std::string_view opcode)
    {
        if (name.empty())
            return "the " + std::string(opcode) + " written as an operand";
        return "'" + std::string(name) + "' (" + std::string(opcode) + ")";
    }

    // The name XLA gives an instruction written as an operand: `<opcode>.anon`, made unique among the
    // names of the module read so far as XLA's NameUniquer does (docs/formats.md §8.7). The names
    // met since the last one are registered first (in the order XLA registers them), so that a
    // module without such operands pays nothing for this.
    std::string_view generatedName(std::string_view opcode)
    {
        if (!m_uniquer)
            m_uniquer = std::make_unique<HloNameUniquer>();
        for (; m_namesRegistered < m.instructions.size(); ++m_namesRegistered)
            m_uniquer->registerWritten(m.instructions[m_namesRegistered].name);
        // XLA names an instruction after its opcode; the async shorthand `X-start` is an async-start.
        std::string base(opcode);
        switch (featurizedOpcode(opcode)) {
        case 115:
            base = "async-start";
            break;
        case 116:
            base = "async-update";
            break;
        case 117:
            base = "async-done";
            break;
        default:
            break;
        }
        const std::string unique = m_uniquer->unique(base + ".anon");
        m_namesRegistered = m.instructions.size() + 1; // the instruction about to be appended
        return m.intern(unique);
    }

    // The shape of operand k of `inst` (parsed just now): written inline, or named, then looked up
    // among the instructions read so far as XLA's parser does; nullopt when it names none of them.
    std::optional<uint32_t> operandShape(
        const HloInstruction& inst, size_t k, size_t& nextRef, std::string_view& missing, size_t& missingPos) const
    {
        int64_t id = m.ints[inst.operandIds.offset + k];
        if (id < 0) {
            const NameRef& ref = m_operands[nextRef++];
            const auto it = m_names.find(ref.name);
            if (it == m_names.end()) {
                missing = ref.name;
                missingPos = ref.pos;
                return std::nullopt;
            }
            id = int64_t(it->second);
        }
        return m.instructions[size_t(id)].shape;
    }

    uint32_t inferShape(const HloInstruction& inst, std::string_view opcode, std::string_view name, size_t start,
        size_t refsBegin, const std::vector<NameRef>* called)
    {
        std::vector<uint32_t> operands;
        size_t nextRef = refsBegin;
        for (uint32_t k = 0; k < inst.operandIds.count; ++k) {
            std::string_view missing;
            size_t missingPos = 0;
            const std::optional<uint32_t> s = operandShape(inst, k, nextRef, missing, missingPos);
            if (!s)
                failAt(missingPos,
                    "cannot infer the shape of " + describe(name, opcode) + ": its operand '" + std::string(missing)
                        + "' is not defined before it (XLA's parser infers a shape from the instructions read so far)");
            operands.push_back(*s);
        }
        std::vector<uint32_t> roots;
        for (int slot = 0; slot < SlotCount; ++slot) {
            for (const NameRef& ref : called[slot]) {
                const auto it = m_computationIndex.find(ref.name);
                if (it == m_computationIndex.end())
                    failAt(ref.pos,
                        "cannot infer the shape of " + describe(name, opcode) + ": computation '"
                            + std::string(ref.name) + "' is not defined before it");
                roots.push_back(m.instructions[size_t(m.computations[it->second].rootId)].shape);
            }
        }
        HloShapeRequest request;
        request.opcode = opcode;
        request.operands = operands;
        request.calleeRoots = roots;
        request.dimensions = inst.dimensions;
        request.hasDimensions = m_sawDimensions;
        request.details = m_hasDetails ? &m_details : nullptr;
        request.dot = m_hasDot ? &m_dot : nullptr;
        request.featureGroupCount = m_sawFeatureGroupCount ? inst.featureGroupCount : 1;
        request.batchGroupCount = m_sawBatchGroupCount ? inst.batchGroupCount : 1;
        request.attributes = m_rawAttributes;
        try {
            return inferHloShape(m, request);
        } catch (const HloShapeError& e) {
            failAt(start, "cannot infer the shape of " + describe(name, opcode) + ": " + e.what());
        }
    }

    // XLA's parser reads no attributes after an instruction written as an operand (a ',' there
    // starts the next operand), so an opcode that needs one cannot be written so.
    void checkInlineAttributes(const HloInstruction& inst, std::string_view opcode, size_t start, size_t refsBegin)
    {
        static const std::unordered_map<std::string_view, std::string_view> needs = {
            { "all-gather", "dimensions" },
            { "all-gather-start", "dimensions" },
            { "all-reduce", "to_apply" },
            { "all-reduce-start", "to_apply" },
            { "async-start", "calls" },
            { "batch-norm-grad", "epsilon" },
            { "batch-norm-inference", "epsilon" },
            { "batch-norm-training", "epsilon" },
            { "call", "to_apply" },
            { "collective-permute", "source_target_pairs" },
            { "collective-permute-start", "source_target_pairs" },
            { "compare", "direction" },
            { "concatenate", "dimensions" },
            { "conditional", "branch_computations" },
            { "convolution", "dim_labels" },
            { "custom-call", "custom_call_target" },
            { "domain", "domain" },
            { "dynamic-slice", "dynamic_slice_sizes" },
            { "fft", "fft_type" },
            { "fusion", "calls" },
            { "gather", "offset_dims" },
            { "get-dimension-size", "dimensions" },
            { "get-tuple-element", "index" },
            { "iota", "iota_dimension" },
            { "map", "to_apply" },
            { "pad", "padding" },
            { "reduce", "to_apply" },
            { "reduce-precision", "exponent_bits" },
            { "reduce-scatter", "to_apply" },
            { "reduce-window", "to_apply" },
            { "reverse", "dimensions" },
            { "rng", "distribution" },
            { "rng-bit-generator", "algorithm" },
            { "rng-get-and-update-state", "delta" },
            { "scan", "to_apply" },
            { "scatter", "update_window_dims" },
            { "select-and-scatter", "select" },
            { "set-dimension-size", "dimensions" },
            { "slice", "slice" },
            { "sort", "dimensions" },
            { "topk", "k" },
            { "transpose", "dimensions" },
            { "while", "condition" },
        };
        std::string_view needed;
        if (const auto it = needs.find(opcode); it != needs.end()) {
            needed = it->second;
        } else if (opcode == "broadcast" && inst.operandIds.count == 1) { // dimensions= may go for a scalar
            size_t nextRef = refsBegin, missingPos = 0;
            std::string_view missing;
            const std::optional<uint32_t> s = operandShape(inst, 0, nextRef, missing, missingPos);
            if (s && m.shapes[*s].dims.count != 0)
                needed = "dimensions";
        }
        if (!needed.empty())
            failAt(start,
                "an instruction written as an operand takes no attributes, and " + std::string(opcode) + " needs "
                    + std::string(needed) + "=: write it as an instruction of its own and name it here");
    }

    // What XLA's parser fills in when the text leaves a field out (docs/formats.md §4.3), so that text and
    // protobuf modules featurize alike.
    void applyDefaults(HloInstruction& inst, std::string_view opcode)
    {
        if (opcode == "convolution" || opcode == "custom-call") {
            if (!m_sawFeatureGroupCount)
                inst.featureGroupCount = 1;
            if (!m_sawBatchGroupCount)
                inst.batchGroupCount = 1;
        }
        if (opcode == "map" && inst.dimensions.count == 0) { // ASSUMPTION (docs/formats.md §4.3): all dimensions
            const size_t rank = m.shapes[inst.shape].dims.count;
            std::vector<int64_t> all(rank);
            for (size_t k = 0; k < rank; ++k)
                all[k] = int64_t(k);
            inst.dimensions = m.addInts(all);
        }
        m_sawFeatureGroupCount = m_sawBatchGroupCount = false;
    }

    // Opcode names are interned once per distinct opcode.
    std::string_view internOpcode(std::string_view opcode)
    {
        auto it = m_opcodes.find(opcode);
        if (it != m_opcodes.end())
            return *it;
        return *m_opcodes.insert(m.intern(opcode)).first;
    }

    // The operand list after '(' (a parameter's number, a constant's literal); returns where the
    // references to named operands of this instruction start in m_operands. An operand is a name,
    // possibly after its shape as old dumps print it, or an instruction written in place
    // (`add(f32[] parameter(0), f32[] constant(1))`, docs/formats.md §8.7), read as one.
    size_t parseOperands(HloInstruction& inst, std::string_view opcode, size_t opcodePos, int depth)
    {
        if (opcode == std::string_view("parameter", 9)) {
            inst.parameterNumber = integer("a parameter number");
            if (inst.parameterNumber < 0)
                failAt(opcodePos, "negative parameter number");
            expect(')', "after the parameter number");
            return m_operands.size();
        }
        if (opcode == std::string_view("constant", 8)) { // the literal: skipped, balanced
            int level = 1;
            while (level > 0) {
                if (m_pos >= m_text.size())
                    failAt(opcodePos, "unbalanced '(': constant literal never closed");
                const char c = m_text[m_pos];
                if (c == '"' || c == '\'') {
                    scanString();
                    continue;
                }
                if (c == '(' || c == '{' || c == '[') {
                    if (++level > kMaxDepth)
                        failAt(m_pos, "literal nested deeper than " + std::to_string(kMaxDepth) + " levels");
                } else if (c == ')' || c == '}' || c == ']') {
                    --level;
                }
                ++m_pos;
            }
            return m_operands.size();
        }
        struct OperandRef
        {
            std::string_view name;
            size_t pos;
            int64_t id; // >= 0: an instruction written in place, already read
        };
        OperandRef refs[16];
        std::vector<OperandRef> more;
        size_t count = 0;
        if (!consume(')')) {
            for (;;) {
                skip();
                const size_t operandStart = m_pos;
                if (startsShape()) { // old dumps print operand shapes: add(f32[] %x, f32[] %y)
                    const size_t shapes = m.shapes.size();
                    const size_t ints = m.ints.size();
                    shapeValue(0, false);
                    m.shapes.resize(shapes);
                    m.ints.resize(ints);
                }
                skip();
                const size_t pos = m_pos;
                OperandRef ref { identifier("an operand name"), pos, -1 };
                const char next = peek();
                if (next == '(') { // an instruction written in place: its opcode, then its operands
                    if (depth >= kMaxDepth)
                        failAt(operandStart,
                            "instructions written as operands nested deeper than " + std::to_string(kMaxDepth)
                                + " levels");
                    m_pos = operandStart;
                    ref.id = parseInstructionRhs({}, operandStart, operandStart, depth + 1);
                } else if (next == '=') {
                    failAt(pos,
                        "'" + std::string(ref.name)
                            + "=' in an operand list: an instruction written as an operand takes no attributes; "
                              "write it as an instruction of its own and name it here");
                }
                if (count < 16)
                    refs[count] = ref;
                else
                    more.push_back(ref);
                ++count;
                if (consume(','))
                    continue;
                expect(')', "to close the operand list");
                break;
            }
        }
        const size_t refsBegin = m_operands.size();
        inst.operandIds.offset = uint32_t(m.ints.size());
        inst.operandIds.count = uint32_t(count);
        for (size_t k = 0; k < count; ++k) {
            const OperandRef& ref = k < 16 ? refs[k] : more[k - 16];
            if (ref.id < 0)
                m_operands.push_back({ uint32_t(m.ints.size()), ref.name, ref.pos });
            m.ints.push_back(ref.id);
        }
        return refsBegin;
    }

    // ---- attributes -----------------------------------------------------------------------------
    struct ValueReader
    {
        TextParser& p;
        std::string_view s;
        size_t base;
        size_t i = 0;

        [[noreturn]] void fail(const std::string& problem) { p.failAt(base + i, problem); }
        void spaces()
        {
            while (i < s.size() && isSpace(s[i]))
                ++i;
        }
        bool at(char c)
        {
            spaces();
            return i < s.size() && s[i] == c;
        }
        bool take(char c)
        {
            if (!at(c))
                return false;
            ++i;
            return true;
        }
        void need(char c, const char* context)
        {
            if (!take(c))
                fail(std::string("expected '") + c + "' " + context);
        }
        bool done()
        {
            spaces();
            return i >= s.size();
        }
        int64_t number(const char* what)
        {
            spaces();
            bool negative = false;
            if (i < s.size() && s[i] == '-') {
                negative = true;
                ++i;
            }
            if (i >= s.size() || !isDigit(s[i]))
                fail(std::string("expected ") + what);
            uint64_t v = 0;
            while (i < s.size() && isDigit(s[i])) {
                const uint64_t d = uint64_t(s[i++] - '0');
                if (v > (uint64_t(INT64_MAX) - d) / 10)
                    fail(std::string(what) + " does not fit in 64 bits");
                v = v * 10 + d;
            }
            return negative ? -int64_t(v) : int64_t(v);
        }
        // {a,b,c} or a bare integer
        std::vector<int64_t> list(const char* what)
        {
            std::vector<int64_t> out;
            if (!take('{')) {
                out.push_back(number(what));
                return out;
            }
            if (take('}'))
                return out;
            for (;;) {
                out.push_back(number(what));
                if (take(','))
                    continue;
                need('}', "to close the list");
                return out;
            }
        }
        // a x-separated list of integers, e.g. 3x3 (one value when there is no 'x')
        std::vector<int64_t> xList(const char* what)
        {
            std::vector<int64_t> out;
            for (;;) {
                out.push_back(number(what));
                if (i < s.size() && s[i] == 'x') {
                    ++i;
                    continue;
                }
                return out;
            }
        }
        std::string_view word()
        {
            spaces();
            const size_t start = i;
            while (i < s.size() && (isAlpha(s[i]) || isDigit(s[i]) || s[i] == '_'))
                ++i;
            return s.substr(start, i - start);
        }
    };

    void setDetails() { m_hasDetails = true; }

    enum class Attr {
        Other,
        Dimensions,
        IotaDimension,
        FeatureGroups,
        BatchGroups,
        IsStable,
        Window,
        DimLabels,
        Slice,
        DynamicSliceSizes,
        Padding,
        LhsContracting,
        RhsContracting,
        LhsBatch,
        RhsBatch,
        Metadata,
        Sparsity,
    };
    static Attr attrKind(std::string_view name)
    {
        static const std::unordered_map<std::string_view, Attr> kinds = {
            { "dimensions", Attr::Dimensions },
            { "iota_dimension", Attr::IotaDimension },
            { "feature_group_count", Attr::FeatureGroups },
            { "batch_group_count", Attr::BatchGroups },
            { "is_stable", Attr::IsStable },
            { "window", Attr::Window },
            { "dim_labels", Attr::DimLabels },
            { "slice", Attr::Slice },
            { "dynamic_slice_sizes", Attr::DynamicSliceSizes },
            { "padding", Attr::Padding },
            { "lhs_contracting_dims", Attr::LhsContracting },
            { "rhs_contracting_dims", Attr::RhsContracting },
            { "lhs_batch_dims", Attr::LhsBatch },
            { "rhs_batch_dims", Attr::RhsBatch },
            { "metadata", Attr::Metadata },
            { "sparsity", Attr::Sparsity },
        };
        auto it = kinds.find(name);
        return it == kinds.end() ? Attr::Other : it->second;
    }

    void applyAttribute(HloInstruction& inst, std::string_view attr, std::string_view value, size_t attrPos,
        size_t valuePos, std::vector<NameRef>* called)
    {
        ValueReader r { *this, value, valuePos };
        const Attr kind = attrKind(attr);
        if (kind == Attr::Other) {
            if (const int slot = callSlot(attr); slot >= 0)
                addCalls(attr, value, valuePos, called[slot]);
            else if (m_options.keepAttributes)
                keepAttribute(attr, value);
            return;
        }
        if (kind == Attr::Dimensions) {
            const std::vector<int64_t> dims = r.list("a dimension");
            inst.dimensions = m.addInts(dims);
            m_sawDimensions = true;
        } else if (kind == Attr::IotaDimension) {
            const int64_t d = r.number("the iota dimension");
            inst.dimensions = m.addInts({ &d, 1 });
        } else if (kind == Attr::FeatureGroups) {
            inst.featureGroupCount = r.number("the feature group count");
            m_sawFeatureGroupCount = true;
        } else if (kind == Attr::BatchGroups) {
            inst.batchGroupCount = r.number("the batch group count");
            m_sawBatchGroupCount = true;
        } else if (kind == Attr::IsStable) {
            inst.isStable = value == "true";
        } else if (kind == Attr::Window) {
            parseWindow(r);
        } else if (kind == Attr::DimLabels) {
            parseDimLabels(value, valuePos);
        } else if (kind == Attr::Slice) {
            parseSlices(r);
        } else if (kind == Attr::DynamicSliceSizes) {
            m_details.dynamicSliceSizes = m.addInts(r.list("a slice size"));
            setDetails();
        } else if (kind == Attr::Padding) {
            parsePadding(r);
        } else if (kind == Attr::Metadata) {
            parseMetadata(value, valuePos);
            if (m_options.keepAttributes)
                keepAttribute(attr, value);
        } else if (kind == Attr::Sparsity) {
            parseSparsity(r);
            if (m_options.keepAttributes)
                keepAttribute(attr, value);
        } else { // dot dimension numbers
            const IntSpan dims = m.addInts(r.list("a dimension"));
            m_hasDot = true;
            if (kind == Attr::LhsContracting)
                m_dot.lhsContracting = dims;
            else if (kind == Attr::RhsContracting)
                m_dot.rhsContracting = dims;
            else if (kind == Attr::LhsBatch)
                m_dot.lhsBatch = dims;
            else
                m_dot.rhsBatch = dims;
        }
        (void)attrPos;
    }

    void keepAttribute(std::string_view attr, std::string_view value)
    {
        if (m_details.attributeCount == 0)
            m_details.attributeOffset = uint32_t(m.attributes.size());
        m.attributes.push_back({ m.intern(attr), m.intern(value) });
        ++m_details.attributeCount;
        setDetails();
    }

    // calls=%x, to_apply=x, branch_computations={%a, %b} ...
    void addCalls(std::string_view attr, std::string_view value, size_t valuePos, std::vector<NameRef>& slot)
    {
        {
            std::string_view rest = value;
            size_t offset = valuePos;
            if (!rest.empty() && rest.front() == '{') {
                rest = rest.substr(1, rest.size() - 2);
                ++offset;
            }
            size_t k = 0;
            while (k < rest.size()) {
                while (k < rest.size() && (isSpace(rest[k]) || rest[k] == ','))
                    ++k;
                if (k >= rest.size())
                    break;
                const size_t begin = k;
                if (rest[k] == '%')
                    ++k;
                const size_t nameBegin = k;
                while (k < rest.size() && isIdentChar(rest[k]))
                    ++k;
                if (k == nameBegin)
                    failAt(offset + begin, "expected a computation name in " + std::string(attr) + "=");
                slot.push_back({ 0, rest.substr(nameBegin, k - nameBegin), offset + begin });
            }
        }
    }

    // window={size=3x3 stride=2x2 pad=0_1x0_1 lhs_dilate=1x1 rhs_dilate=1x1 rhs_reversal=0x1}
    void parseWindow(ValueReader& r)
    {
        r.need('{', "to open the window");
        std::vector<HloWindowDimension> dims;
        struct Field
        {
            std::string_view key;
            std::vector<int64_t> values;
            std::vector<std::pair<int64_t, int64_t>> pads;
            size_t pos;
        };
        std::vector<Field> fields;
        while (!r.take('}')) {
            if (r.done())
                r.fail("unterminated window");
            Field f;
            f.pos = r.base + r.i;
            f.key = r.word();
            r.need('=', "after a window field");
            if (f.key == "pad") {
                for (;;) {
                    const int64_t low = r.number("a low padding");
                    if (!(r.i < r.s.size() && r.s[r.i] == '_'))
                        r.fail("expected low_high padding");
                    ++r.i;
                    const int64_t high = r.number("a high padding");
                    f.pads.emplace_back(low, high);
                    if (r.i < r.s.size() && r.s[r.i] == 'x') {
                        ++r.i;
                        continue;
                    }
                    break;
                }
            } else {
                f.values = r.xList("a window value");
            }
            fields.push_back(std::move(f));
        }
        size_t rank = 0;
        for (const Field& f : fields)
            if (f.key == "size")
                rank = f.values.size();
        dims.resize(rank);
        for (const Field& f : fields) {
            const size_t n = f.key == "pad" ? f.pads.size() : f.values.size();
            if (n != rank)
                failAt(f.pos,
                    "window field '" + std::string(f.key) + "' has " + std::to_string(n) + " entries but size has "
                        + std::to_string(rank));
            for (size_t d = 0; d < rank; ++d) {
                HloWindowDimension& w = dims[d];
                if (f.key == "size")
                    w.size = f.values[d];
                else if (f.key == "stride")
                    w.stride = f.values[d];
                else if (f.key == "pad") {
                    w.paddingLow = f.pads[d].first;
                    w.paddingHigh = f.pads[d].second;
                } else if (f.key == "lhs_dilate")
                    w.baseDilation = f.values[d];
                else if (f.key == "rhs_dilate")
                    w.windowDilation = f.values[d];
                else if (f.key == "rhs_reversal")
                    w.reversal = f.values[d] != 0;
            }
        }
        m_details.windowOffset = uint32_t(m.windowDims.size());
        m_details.windowCount = uint32_t(rank);
        m.windowDims.insert(m.windowDims.end(), dims.begin(), dims.end());
        setDetails();
    }

    // sparsity=L.1@2:4 or L.1@2:4_R.0@2:4: per sparse operand (L or R), its sparse dimension and
    // n:m, n of every m values stored (a structured-sparsity dot, docs/formats.md §8.4).
    void parseSparsity(ValueReader& r)
    {
        std::vector<int64_t> values;
        for (;;) {
            if (r.i + 1 >= r.s.size() || (r.s[r.i] != 'L' && r.s[r.i] != 'R') || r.s[r.i + 1] != '.')
                r.fail("expected a sparsity descriptor like L.1@2:4 (operand L or R, dimension, n:m)");
            values.push_back(r.s[r.i] == 'L' ? 0 : 1);
            r.i += 2;
            const size_t dimensionAt = r.i;
            values.push_back(r.number("a sparse dimension"));
            if (values.back() < 0) {
                r.i = dimensionAt;
                r.fail("negative sparse dimension");
            }
            if (!(r.i < r.s.size() && r.s[r.i] == '@'))
                r.fail("expected '@' after the sparse dimension (L.1@2:4)");
            ++r.i;
            const size_t nAt = r.i;
            const int64_t n = r.number("n of n:m");
            if (!(r.i < r.s.size() && r.s[r.i] == ':'))
                r.fail("expected ':' between n and m (L.1@2:4)");
            ++r.i;
            const int64_t mm = r.number("m of n:m");
            if (n < 1 || mm <= n) {
                r.i = nAt;
                r.fail("invalid structured sparsity " + std::to_string(n) + ":" + std::to_string(mm)
                    + " (it takes 1 <= n < m)");
            }
            values.push_back(n);
            values.push_back(mm);
            if (r.i == r.s.size())
                break;
            if (r.s[r.i] != '_')
                r.fail("expected '_' between sparsity descriptors");
            ++r.i;
        }
        if (values.size() > 8)
            r.fail(
                "too many sparsity descriptors: " + std::to_string(values.size() / 4) + " (one per operand at most)");
        m_dot.sparsity = m.addInts(values);
        m_hasDot = true;
    }

    // dim_labels=b01f_01io->b01f
    void parseDimLabels(std::string_view value, size_t pos)
    {
        const size_t underscore = value.find('_');
        const size_t arrow = value.find("->");
        if (underscore == std::string_view::npos || arrow == std::string_view::npos || arrow < underscore)
            failAt(pos, "dim_labels must look like b01f_01io->b01f");
        const std::string_view lhs = value.substr(0, underscore);
        const std::string_view rhs = value.substr(underscore + 1, arrow - underscore - 1);
        const std::string_view out = value.substr(arrow + 2);
        HloConvolutionDims c;
        auto spatial = [&](std::string_view labels, size_t at, char a, char b, int64_t& da, int64_t& db) {
            std::vector<int64_t> sp(labels.size(), -1);
            size_t count = 0;
            for (size_t p = 0; p < labels.size(); ++p) {
                const char ch = labels[p];
                if (ch == a)
                    da = int64_t(p);
                else if (ch == b)
                    db = int64_t(p);
                else if (isDigit(ch)) {
                    const size_t k = size_t(ch - '0');
                    if (k >= labels.size() || sp[k] != -1)
                        failAt(at + p, "bad spatial dimension label '" + std::string(1, ch) + "' in dim_labels");
                    sp[k] = int64_t(p);
                    ++count;
                } else if (ch != '?') {
                    failAt(at + p, "unexpected '" + std::string(1, ch) + "' in dim_labels");
                }
            }
            sp.resize(count);
            for (int64_t v : sp)
                if (v < 0)
                    failAt(at, "spatial dimension labels in dim_labels are not 0..n-1");
            return m.addInts(sp);
        };
        c.inputSpatial = spatial(lhs, pos, 'b', 'f', c.inputBatch, c.inputFeature);
        c.kernelSpatial = spatial(rhs, pos + underscore + 1, 'i', 'o', c.kernelInputFeature, c.kernelOutputFeature);
        c.outputSpatial = spatial(out, pos + arrow + 2, 'b', 'f', c.outputBatch, c.outputFeature);
        m_details.convolutionDims = int32_t(m.convolutionDims.size());
        m.convolutionDims.push_back(c);
        setDetails();
    }

    // slice={[0:10], [0:25:2]}
    void parseSlices(ValueReader& r)
    {
        r.need('{', "to open the slice list");
        std::vector<HloSliceDimension> dims;
        if (!r.take('}')) {
            for (;;) {
                r.need('[', "to open a slice");
                HloSliceDimension d;
                d.start = r.number("a slice start");
                r.need(':', "after a slice start");
                d.limit = r.number("a slice limit");
                if (r.take(':'))
                    d.stride = r.number("a slice stride");
                r.need(']', "to close a slice");
                dims.push_back(d);
                if (r.take(','))
                    continue;
                r.need('}', "to close the slice list");
                break;
            }
        }
        m_details.sliceOffset = uint32_t(m.slices.size());
        m_details.sliceCount = uint32_t(dims.size());
        m.slices.insert(m.slices.end(), dims.begin(), dims.end());
        setDetails();
    }

    // padding=0_0x1_1_2 (low_high[_interior] per dimension)
    void parsePadding(ValueReader& r)
    {
        std::vector<HloPaddingDimension> dims;
        for (;;) {
            HloPaddingDimension d;
            d.low = r.number("a low padding");
            if (!(r.i < r.s.size() && r.s[r.i] == '_'))
                r.fail("expected low_high padding");
            ++r.i;
            d.high = r.number("a high padding");
            if (r.i < r.s.size() && r.s[r.i] == '_') {
                ++r.i;
                d.interior = r.number("an interior padding");
            }
            dims.push_back(d);
            if (r.i < r.s.size() && r.s[r.i] == 'x') {
                ++r.i;
                continue;
            }
            break;
        }
        m_details.paddingOffset = uint32_t(m.paddings.size());
        m_details.paddingCount = uint32_t(dims.size());
        m.paddings.insert(m.paddings.end(), dims.begin(), dims.end());
        setDetails();
    }

    // metadata={op_type="Conv2D" op_name="model/conv/Conv2D" source_file="x.py" source_line=10}:
    // keeps op_type and op_name (docs/formats.md §8.4); other fields are skipped by a balanced scan.
    void parseMetadata(std::string_view value, size_t pos)
    {
        if (value.empty() || value.front() != '{' || value.back() != '}')
            failAt(pos, "metadata must be a list of fields in braces: metadata={op_type=\"...\" op_name=\"...\"}");
        std::string_view opType, opName;
        m_unescaped[0].clear();
        m_unescaped[1].clear();
        size_t i = 1;
        const size_t end = value.size() - 1;
        for (;;) {
            while (i < end && (isSpace(value[i]) || value[i] == ','))
                ++i;
            if (i >= end)
                break;
            const size_t keyBegin = i;
            while (i < end && (isAlpha(value[i]) || isDigit(value[i]) || value[i] == '_'))
                ++i;
            const std::string_view key = value.substr(keyBegin, i - keyBegin);
            if (key.empty())
                failAt(pos + i, std::string("unexpected '") + value[i] + "' in metadata: expected a field name");
            if (i >= end || value[i] != '=')
                failAt(pos + i, "expected '=' after metadata field '" + std::string(key) + "'");
            ++i;
            const size_t valueBegin = i;
            const bool isType = key == "op_type";
            if (isType || key == "op_name") {
                if (i >= end || value[i] != '"')
                    failAt(pos + i, "metadata " + std::string(key) + " must be a quoted string");
                const std::string_view text = stringBody(value, i, end, pos);
                (isType ? opType : opName) = unescape(text, pos + valueBegin + 1, m_unescaped[isType ? 0 : 1]);
                continue;
            }
            skipMetadataValue(value, i, end, pos);
            if (i == valueBegin)
                failAt(pos + i, "expected a value for metadata field '" + std::string(key) + "'");
        }
        m.setOpMetadata(m.instructions.size(), opType, opName, &m_opNames);
    }

    // At the opening quote at value[i]: the text between the quotes (escapes not resolved); i moves
    // past the closing quote. scanValue has checked that every string of the value is terminated.
    std::string_view stringBody(std::string_view value, size_t& i, size_t end, size_t pos)
    {
        const size_t begin = ++i;
        while (i < end && value[i] != '"')
            i += value[i] == '\\' ? 2 : 1;
        if (i >= end)
            failAt(pos + begin - 1, "unterminated string in metadata");
        return value.substr(begin, i++ - begin);
    }

    // A value of a metadata field other than op_type / op_name: a string, a balanced {...}, or a
    // bare token up to whitespace or ','.
    void skipMetadataValue(std::string_view value, size_t& i, size_t end, size_t pos)
    {
        int depth = 0;
        while (i < end) {
            const char c = value[i];
            if (c == '"') {
                stringBody(value, i, end, pos);
                continue;
            }
            if (c == '{' || c == '[' || c == '(')
                ++depth;
            else if (c == '}' || c == ']' || c == ')')
                --depth;
            else if (depth == 0 && (isSpace(c) || c == ','))
                return;
            ++i;
        }
    }

    // Resolves the C escapes XLA's printer writes in strings (\" \\ \n \t, octal \ooo, hex \xhh,
    // \uXXXX): `text` itself when it has none, else the result in `out`. `pos` is where text starts.
    std::string_view unescape(std::string_view text, size_t pos, std::string& out)
    {
        if (text.find('\\') == std::string_view::npos)
            return text;
        out.clear();
        for (size_t k = 0; k < text.size(); ++k) {
            if (text[k] != '\\') {
                out += text[k];
                continue;
            }
            const size_t at = k++;
            if (k >= text.size())
                failAt(pos + at, "a string ends with a lone backslash");
            const char e = text[k];
            const auto hex = [](char h) {
                return h >= '0' && h <= '9' ? h - '0'
                    : h >= 'a' && h <= 'f'  ? h - 'a' + 10
                    : h >= 'A' && h <= 'F'  ? h - 'A' + 10
                                            : -1;
            };
            constexpr std::string_view kNamed = "ntrabfv\\'\"?", kMeaning = "\n\t\r\a\b\f\v\\'\"?";
            if (const size_t named = kNamed.find(e); named != std::string_view::npos) {
                out += kMeaning[named];
            } else if (e == 'x') {
                int v = 0, digits = 0;
                while (digits < 2 && k + 1 < text.size() && hex(text[k + 1]) >= 0) {
                    v = v * 16 + hex(text[++k]);
                    ++digits;
                }
                if (!digits)
                    failAt(pos + at, "\\x without hex digits in a string");
                out += char(v);
            } else if (e == 'u' || e == 'U') {
                const int need = e == 'u' ? 4 : 8;
                uint32_t cp = 0;
                for (int d = 0; d < need; ++d) {
                    if (k + 1 >= text.size() || hex(text[k + 1]) < 0)
                        failAt(pos + at, std::string("\\") + e + " needs " + std::to_string(need) + " hex digits");
                    cp = cp * 16 + uint32_t(hex(text[++k]));
                }
                if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
                    failAt(pos + at, "escape names no Unicode character");
                appendUtf8(out, cp);
            } else if (e >= '0' && e <= '7') {
                int v = e - '0';
                for (int d = 0; d < 2 && k + 1 < text.size() && text[k + 1] >= '0' && text[k + 1] <= '7'; ++d)
                    v = v * 8 + (text[++k] - '0');
                if (v > 0xff)
                    failAt(pos + at, "octal escape above \\377 in a string");
                out += char(v);
            } else {
                failAt(pos + at, std::string("unknown escape sequence '\\") + e + "' in a string");
            }
        }
        return out;
    }

    static void appendUtf8(std::string& out, uint32_t cp)
    {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xc0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            out += char(0xe0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        } else {
            out += char(0xf0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3f));
            out += char(0x80 | ((cp >> 6) & 0x3f));
            out += char(0x80 | (cp & 0x3f));
        }
    }

    std::string_view m_text; // the file up to the end of this module
    const std::string& m_file;
    HloTextOptions m_options;
    size_t m_pos = 0;
    size_t m_basePos = 0; // where this module starts in the file, at the start of line m_baseLine
    uint32_t m_baseLine = 1;
    size_t m_cachePos = 0;
    uint32_t m_cacheLine = 1;
    size_t m_cacheLineStart = 0;
    bool m_headerless = false;

    HloModule m;
    int64_t m_entry = -1;
    std::unordered_map<std::string_view, size_t> m_computationIndex;
    std::unordered_map<std::string_view, uint32_t> m_names; // of the computation being parsed
    std::unordered_set<std::string_view> m_opcodes; // interned opcode names
    std::vector<NameRef> m_operands;
    std::vector<NameRef> m_calls;
    HloInstructionDetails m_details;
    std::string m_unescaped[2]; // op_type and op_name of the metadata being read, when escaped
    HloInternCache m_opNames; // op types and names read lately
    bool m_hasDetails = false;
    HloDotDims m_dot;
    bool m_hasDot = false;
    bool m_sawFeatureGroupCount = false;
    bool m_sawBatchGroupCount = false;
    bool m_sawDimensions = false;
    std::vector<HloAttribute> m_rawAttributes; // of an instruction whose shape is inferred
    std::unique_ptr<HloNameUniquer> m_uniquer; // made when an instruction is written as an operand
    size_t m_namesRegistered = 0; // instructions whose names m_uniquer has met
    bool m_rootSeen = false;
    bool m_sawSecondRoot = false;
    size_t m_rootPos = 0;
};

} // namespace

bool looksLikeHloText(std::string_view text)
{
    const size_t i = skipSpaceAndComments(text, 0);
    if (i >= text.size())
        return false;
    return text.compare(i, 9, "HloModule") == 0 || startsHeaderlessModule(text.substr(i));
}

std::vector<HloTextPart> splitHloText(std::string_view text)
{
    const HloTextPart whole { 0, text.size(), 1 };
    // memmem: '/' is frequent in metadata, where a first-character search would stop at each one.
    if (!memmem(text.data(), text.size(), kHloModuleSeparator.data(), kHloModuleSeparator.size()))
        return { whole };
    std::vector<HloTextPart> parts;
    HloTextPart part = whole;
    uint32_t line = 1;
    for (size_t pos = 0; pos < text.size(); ++line) {
        const size_t nl = text.find('\n', pos);
        const size_t lineEnd = nl == std::string_view::npos ? text.size() : nl;
        const size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
        if (isSeparatorLine(text.substr(pos, lineEnd - pos))) {
            part.end = pos;
            parts.push_back(part);
            part.begin = next;
            part.firstLine = line + 1;
        }
        pos = next;
    }
    part.end = text.size();
    parts.push_back(part);
    // Parts holding nothing but whitespace and comments (before the first separator, after the
    // last, between two) are no modules.
    std::vector<HloTextPart> modules;
    for (const HloTextPart& p : parts)
        if (skipSpaceAndComments(text.substr(0, p.end), p.begin) < p.end)
            modules.push_back(p);
    if (modules.empty())
        return { whole }; // the parser says what is missing
    return modules;
}

HloModule parseHloText(std::string_view text, const std::string& file, const HloTextOptions& options)
{
    const std::vector<HloTextPart> parts = splitHloText(text);
    if (parts.size() > 1)
        throw InputError(file, "line " + std::to_string(parts[1].firstLine - 1),
            "a '// -----' line separates several modules where one module was expected");
    return TextParser(text, parts.front(), file, options).parse();
}

std::vector<HloModule> parseHloTextModules(
    std::string_view text, const std::string& file, const HloTextOptions& options)
{
    std::vector<HloModule> modules;
    for (const HloTextPart& part : splitHloText(text))
        modules.push_back(TextParser(text, part, file, options).parse());
    return modules;
}

HloModule parseHloTextFile(const std::string& path, const HloTextOptions& options)
{
    const FileBytes text = FileBytes::read(path);
    return parseHloText(text.view(), path, options);
}

} // namespace tgraph
