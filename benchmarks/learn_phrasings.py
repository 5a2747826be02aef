"""Learn the words that open a description of a change or a behaviour (`Fix …`, `Add …`, `Remove …`, `Support …`)
from the labelled corpus (benchmarks/intent_corpus.py), on the repositories not held out, and write them as data the
classifier reads (maguyva_lsp/query/data/description_openers.txt). Deterministic for a machine and seed.

    .venv/bin/python benchmarks/learn_phrasings.py [--seed 13] [--min-count 3] [--check]

A word is kept when it opens at least `--min-count` (2) understand_code items, opens no item of another intent, is a
plain word of three letters or more, and is neither a word that opens a search request (find, show, where …) nor a
keyword that opens a line of code (return, if, for …): those stay with the rules that read them.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from intent_corpus import build_corpus

OUT = Path(__file__).resolve().parents[1] / "maguyva_lsp" / "query" / "data" / "description_openers.txt"
# Words that open a request to search, not a description: the phrase and literal rules read these.
SEARCH_WORDS = frozenset(
    "find search grep rg show list get where who what which whose how why explain describe locate go look open "
    "print display give tell lookup usages usage callers references definition impact blast jump navigate".split()
)
# Keywords that open a line of code in the languages the product parses.
CODE_WORDS = frozenset(
    "return raise if elif else for while with try except catch throw def class func fn function import from let "
    "const var type interface struct enum trait impl pub async await yield assert lambda switch case new delete "
    "package module export default public private protected static final void int char bool mod unsafe "
    "extern match select go defer".split()
)
_PLAIN_RE = re.compile(r"[a-z][a-z'-]{2,}")


def learn(seed: int, min_count: int) -> list[str]:
    corpus = [item for item in build_corpus(seed) if not item.held_out]
    opens: dict[str, Counter[str]] = {"understand_code": Counter(), "other": Counter()}
    for item in corpus:
        first = item.query.split(maxsplit=1)[0].strip("`'\"*_:,.()[]").lower() if item.query.split() else ""
        opens["understand_code" if item.intent == "understand_code" else "other"][first] += 1
    return sorted(
        word
        for word, count in opens["understand_code"].items()
        if count >= min_count
        and opens["other"][word] == 0
        and _PLAIN_RE.fullmatch(word)
        and word not in SEARCH_WORDS
        and word not in CODE_WORDS
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--min-count", type=int, default=2)
    parser.add_argument("--check", action="store_true", help="only say whether the stored list is current")
    args = parser.parse_args()
    words = learn(args.seed, args.min_count)
    text = (
        "# Words that open a description of a change or a behaviour, learned by benchmarks/learn_phrasings.py\n"
        f"# (seed {args.seed}, min count {args.min_count}) from the classification corpus, held-out repositories "
        "excluded.\n" + "".join(f"{w}\n" for w in words)
    )
    if args.check:
        current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
        print("current" if current == text else "differs")
        return
    OUT.write_text(text, encoding="utf-8")
    print(f"{len(words)} words → {OUT}")


if __name__ == "__main__":
    main()
