#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a man page (roff, man macros) from a program's real --help output.

    make-manpage.py PROGRAM -o OUT.1[.gz] --source "TGraph Studio 0.1.0" [--date YYYY-MM-DD]
                    [--commands SECTION] [--see-also NAME(1) ...]

The help text is read by running `PROGRAM --help`. With --commands SECTION (e.g. "Commands") every
entry of that section is a command, and `PROGRAM COMMAND --help` becomes its subsection of COMMAND
DETAILS. Help texts are parsed by their shape, the one both tgraph's ArgParser and Qt's
QCommandLineParser print: "Usage: ..." lines (indented lines after them continue the synopsis),
prose, and sections opened by a "Title:" line whose entries are "  left   text" (text in a column;
deeper-indented lines continue an entry). Prose lines indented under a paragraph ("  export: ...")
become indented paragraphs. Fails (exit 1) when a --help exits non-zero or prints nothing, so a
broken build cannot give an empty page; the page is written atomically.
"""

import argparse
import collections
import gzip
import os
import re
import subprocess
import sys
import tempfile

SECTION_RE = re.compile(r"^([A-Z][A-Za-z -]*):$")
ENTRY_RE = re.compile(r"^  (\S(?:.*?\S)?)(?: {2,}(\S.*))?$")
LABEL_RE = re.compile(r"^\s+[A-Za-z][\w -]*: ")


class Section:
    def __init__(self, title):
        self.title = title
        self.lines = []  # the entry lines, as printed
        self.paragraphs = []  # prose after the entries

    def entries(self):
        """[[left, text]]: the text starts in the column most entries use (ArgParser pads the left
        part to a fixed width, leaving a single space when it just fits; Qt aligns likewise)."""
        starts = collections.Counter()
        for line in self.lines:
            m = ENTRY_RE.match(line)
            if m and m.group(2):
                starts[m.start(2)] += 1
        column = starts.most_common(1)[0][0] if starts else 0
        entries = []
        for line in self.lines:
            if entries and line.startswith("    "):
                entries[-1][1] = (entries[-1][1] + " " + line.strip()).strip()
            elif column and len(line) > column and line[column - 1] == " " and line[column] != " ":
                entries.append([line[:column].strip(), line[column:].strip()])
            else:
                m = ENTRY_RE.match(line)
                entries.append([m.group(1), m.group(2) or ""] if m else [line.strip(), ""])
        return entries


class Help:
    def __init__(self, text, program):
        self.usage = []
        self.intro = []  # paragraphs (lists of lines) before the first section
        self.sections = []
        paragraphs, section, block, in_usage = self.intro, None, None, False
        for raw in text.splitlines():
            line = raw.rstrip()
            if not line:
                block, in_usage = None, False
                continue
            if line.startswith("Usage:"):
                self.usage.append(usage_line(line[len("Usage:"):].strip(), program))
                in_usage = True
                continue
            if in_usage and line.startswith(" "):
                words = line.split()
                if os.path.basename(words[0]) == program:
                    self.usage.append(usage_line(line.strip(), program))
                else:
                    self.usage.append("    " + line.strip())  # a long synopsis goes on
                continue
            in_usage = False
            title = SECTION_RE.match(line)
            if title:
                section = Section(title.group(1))
                self.sections.append(section)
                paragraphs, block = section.paragraphs, None
                continue
            if section is not None and not section.paragraphs and block is None and line.startswith("  "):
                section.lines.append(line)
                continue
            if block is None:
                block = []
                paragraphs.append(block)
            block.append(line)


def usage_line(text, program):
    """A synopsis line with the program named by its name, not the path it was run as."""
    first, _, rest = text.partition(" ")
    return f"{program} {rest}".strip() if os.path.basename(first) == program else text


def run_help(argv):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", LC_ALL="C.UTF-8")
    try:
        done = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit(f"make-manpage: cannot run {' '.join(argv)} --help: {e}")
    if done.returncode != 0 or not done.stdout.strip():
        sys.exit(f"make-manpage: {' '.join(argv)} --help exited with {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def escape(text):
    """roff-safe text: backslashes, minus signs, non-ASCII as \\[uXXXX], no control lines."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ord(ch) > 127:
            out.append(f"\\[u{ord(ch):04X}]")
        else:
            out.append(ch)
    s = "".join(out)
    return "\\&" + s if s.startswith((".", "'")) else s


def bold_name(line):
    """A synopsis line: the program bold, the rest roman (an indented continuation all roman)."""
    if line.startswith(" "):
        return escape(line)
    first, _, rest = line.partition(" ")
    return f"\\fB{escape(first)}\\fR {escape(rest)}".rstrip()


def styled_left(left):
    """Option and command names bold, value placeholders italic: "-o, --output OUT"."""
    words = []
    for word in left.split(" "):
        bare = word.rstrip(",")
        comma = word[len(bare):]
        if bare.startswith("-") or re.fullmatch(r"[a-z][a-z-]*", bare):
            words.append(f"\\fB{escape(bare)}\\fR{comma}")
        elif bare:
            words.append(f"\\fI{escape(bare)}\\fR{comma}")
    return " ".join(words)


def emit_paragraph(out, lines):
    """Prose is filled; lines indented under it become indented paragraphs, a new one at each
    "label: " line (deeper-indented or unlabelled lines continue the previous one)."""
    out.append(".PP")
    items = []
    for line in lines:
        if not line.startswith(" "):
            if items:
                out.append(".PP")
                items = []
            out.append(escape(line))
        elif not items or LABEL_RE.match(line):
            items.append(line.strip())
            out += [".IP \"\" 4", escape(line.strip())]
        else:
            out.append(escape(line.strip()))


def emit_sections(out, sections, top_level):
    """A help's sections: .SH headings for the program's own, bold "Title:" lines in a command's."""
    for section in sections:
        if top_level:
            out.append(f".SH \"{escape(section.title.upper())}\"")
        else:
            out += [".PP", f"\\fB{escape(section.title)}:\\fR"]
        for left, text in section.entries():
            out += [".TP", styled_left(left), escape(text)]
        for p in section.paragraphs:
            emit_paragraph(out, p)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("program")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--source", required=True, help='footer, e.g. "TGraph Studio 0.1.0"')
    ap.add_argument("--date", default="", help="page date (YYYY-MM-DD)")
    ap.add_argument("--commands", help="section of the help listing commands with their own --help")
    ap.add_argument("--see-also", nargs="*", default=[])
    args = ap.parse_args()

    program = os.path.abspath(args.program)
    name = os.path.basename(program)
    top = Help(run_help([program]), name)
    if not top.usage or not top.intro:
        sys.exit(f"make-manpage: {program} --help has no 'Usage:' line or no description")
    commands = []
    if args.commands:
        listing = [s for s in top.sections if s.title == args.commands]
        if not listing:
            sys.exit(f"make-manpage: {program} --help has no '{args.commands}:' section")
        commands = [left for left, _ in listing[0].entries()]
    details = [(c, Help(run_help([program, c]), name)) for c in commands]
    for command, h in details:
        if not h.usage:
            sys.exit(f"make-manpage: {name} {command} --help has no 'Usage:' line")

    out = [f".\\\" Generated by packaging/make-manpage.py from '{name} --help'; do not edit.",
           f".TH \"{name.upper()}\" \"1\" \"{args.date}\" \"{escape(args.source)}\" \"User Commands\"",
           ".nh", ".SH NAME", f"{escape(name)} \\- {escape(' '.join(top.intro[0]).rstrip('.'))}",
           ".SH SYNOPSIS", ".nf"]
    out += [bold_name(u) for u in top.usage + [u for _, h in details for u in h.usage]]
    out += [".fi", ".SH DESCRIPTION"]
    for p in top.intro[1:]:
        emit_paragraph(out, p)
    if not top.intro[1:]:
        out.append(escape(" ".join(top.intro[0])))
    emit_sections(out, top.sections, top_level=True)
    if details:
        out.append(".SH \"COMMAND DETAILS\"")
        for command, h in details:
            out += [f".SS \"{escape(name)} {escape(command)}\"", ".nf"] + [bold_name(u) for u in h.usage] + [".fi"]
            for p in h.intro:
                emit_paragraph(out, p)
            emit_sections(out, h.sections, top_level=False)
    if args.see_also:
        refs = [re.fullmatch(r"(.+)\((\w+)\)", s) for s in args.see_also]
        out += [".SH \"SEE ALSO\"", ", ".join(f"\\fB{escape(m.group(1))}\\fR({m.group(2)})" if m else escape(s)
                                               for m, s in zip(refs, args.see_also))]
    text = "\n".join(out) + "\n"

    # Written atomically (a failed run leaves no half page behind); OUT.1.gz is gzipped without a
    # name or time stamp, as Debian ships man pages, so that equal pages give equal files.
    directory = os.path.dirname(os.path.abspath(args.output))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".manpage-")
    try:
        with os.fdopen(fd, "wb") as f:
            if args.output.endswith(".gz"):
                with gzip.GzipFile(filename="", mode="wb", fileobj=f, compresslevel=9, mtime=0) as z:
                    z.write(text.encode("ascii"))
            else:
                f.write(text.encode("ascii"))
        os.chmod(tmp, 0o644)
        os.replace(tmp, args.output)
    except BaseException:
        os.unlink(tmp)
        raise


if __name__ == "__main__":
    main()
