r"""PLEAK's attacker files (``.att``) and attacker goals: a tokenizer and parsers.

The grammar follows PLEAK's SQL analyser (``banach/ParserQ.hs``: ``varStateVal`` for the
attacker's knowledge, ``cExpr`` for goals; ``banach/VarstateQ.hs``, ``banach/PolicyQ.hs``); the
code shares none of PLEAK's.  Files are read in chunks with bounded tokens, nesting and value
counts.  :mod:`garesearch.app.pleak` maps what is read onto the paper's objects and re-exports
the public names here.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..errors import ParameterError
from ..priors import Categorical, Normal, PiecewiseUniform, Prior, Uniform

__all__ = [
    "And",
    "Knowledge",
    "Or",
    "PleakFormatError",
    "Term",
    "parse_attacker",
    "parse_goal",
    "read_attacker",
    "read_goal",
]

#: PLEAK's tolerance for probabilities that should sum to 1 (``isBadAttState``)
_PROB_TOL = 1e-6


class PleakFormatError(ParameterError):
    """A malformed attacker or goal file; the message starts with ``source:line:``."""


# ------------------------------------------------------------------------------------------
# Tokens
# ------------------------------------------------------------------------------------------
class _Tok(NamedTuple):
    kind: str  # "id", "num", "str", "sym", "end"
    text: str
    line: int


_TOKEN_RE = re.compile(
    r"""
    (?P<ws>\s*)
    (?:
      (?P<lcom>(--|//)[^\n]*)
    | (?P<bcom>/\*.*?\*/)
    | (?P<num>[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)
    | (?P<id>[A-Za-z][A-Za-z0-9_.]*)
    | (?P<str>'[^'\n]*')
    | (?P<sym>[(),;])
    | (?P<other>\S)
    )
    """,
    re.VERBOSE | re.DOTALL,
)


#: bytes read from a file at a time (files are streamed: an error is reported as soon as
#: it is read, and memory stays bounded)
_CHUNK = 1 << 16
#: tokens ending this close to the end of a chunk wait for the next one (the token
#: regular expression looks at most a few characters beyond a match)
_LOOKAHEAD = 16
#: longest token (or unterminated comment) accepted, in characters
_MAX_TOKEN = 1 << 20
#: deepest nesting of parentheses in a goal
_MAX_NESTING = 64
#: most values in one set (setUnif, setPrior, totalUnif)
_MAX_VALUES = 10**6


def _tokens(chunks, source: str):
    """Tokens of the text given as successive ``chunks`` (strings), lazily, in one list per
    chunk, with their lines; the last list ends with the ``end`` token.

    A token that may go on in the next chunk (one that ends the buffer, an opening quote or
    comment without its end) is carried over; none may exceed ``_MAX_TOKEN`` characters.
    """
    buf, line = "", 1
    for nxt in itertools.chain(chunks, [None]):
        eof = nxt is None
        if not eof:
            buf += nxt
        pos, n = 0, len(buf)
        batch = []
        append = batch.append
        for m in _TOKEN_RE.finditer(buf):
            kind = m.lastgroup
            if kind == "other":
                start = m.start(kind)
                if buf[start] == "'" or buf.startswith("/*", start):
                    if not eof and (buf[start] != "'" or "\n" not in buf[start:]):
                        break  # wait for the closing quote or '*/'
                    line += m.group("ws").count("\n")
                    what = "quoted string" if buf[start] == "'" else "comment '/*'"
                    raise PleakFormatError(f"{source}:{line}: unterminated {what}")
            end = m.end()
            if end > n - _LOOKAHEAD and not eof:
                break  # the next chunk may change or extend it ("1e" + "308")
            ws = m.group(1)
            if "\n" in ws:
                line += ws.count("\n")
            pos = end
            if kind == "bcom":
                line += m.group(kind).count("\n")
            elif kind != "lcom":
                append(_Tok(kind, m.group(kind), line))
        else:
            if eof:
                line += buf.count("\n", pos)
        buf = buf[pos:]
        if len(buf) > _MAX_TOKEN:
            raise PleakFormatError(f"{source}:{line}: a token or comment longer than {_MAX_TOKEN} characters")
        if eof:
            batch.append(_Tok("end", "end of file", line))
        yield batch


def _text_chunks(text: str):
    yield text[1:] if text.startswith("\ufeff") else text  # a byte-order mark is not content


def _file_chunks(path: Path):
    """The UTF-8 text of ``path`` in chunks (a byte-order mark is skipped); a byte that is not
    UTF-8 raises :class:`PleakFormatError` with its line."""
    import codecs

    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    line = 1
    try:
        with path.open("rb") as f:
            while True:
                data = f.read(_CHUNK)
                try:
                    text = decoder.decode(data, final=not data)
                except UnicodeDecodeError as exc:
                    if exc.start < len(data):
                        good = data[: exc.start].decode("utf-8", errors="ignore")
                        where, what = line + good.count(chr(10)), f"byte 0x{data[exc.start]:02x}"
                    else:  # the file ends inside a multi-byte character
                        where, what = line, "it ends inside a character"
                    raise PleakFormatError(
                        f"{path}:{where}: not UTF-8 text ({what}); save the file as UTF-8"
                    ) from None
                line += text.count("\n")
                if text:
                    yield text
                if not data:
                    return
    except OSError as exc:
        raise ParameterError(f"cannot read {path}: {exc.strerror or exc}") from None


class _Stream:
    def __init__(self, chunks, source: str):
        self.source = source
        self._batches = _tokens(chunks, source)
        self._toks: list[_Tok] = []  # tokens read and not yet forgotten
        self._i = 0  # index of the current token in _toks
        self.depth = 0

    def _fill(self, i: int) -> bool:
        """Read batches until ``_toks[i]`` exists (False at the end of the text)."""
        while i >= len(self._toks):
            if self._toks and self._toks[-1].kind == "end":
                return False
            if self._i > 4096:  # forget what was read
                del self._toks[: self._i]
                i -= self._i
                self._i = 0
            self._toks.extend(next(self._batches))
        return True

    def peek(self, k: int = 0) -> _Tok:
        i = self._i + k
        if i < len(self._toks) or self._fill(i):
            return self._toks[self._i + k]
        return self._toks[-1]

    def next(self) -> _Tok:
        tok = self.peek()
        if tok.kind != "end":
            self._i += 1
        return tok

    def skip(self, k: int) -> None:
        """Move ``k`` tokens on (after :meth:`peek` has seen them)."""
        for _ in range(k):
            self.next()

    def error(self, msg: str, tok: _Tok | None = None) -> PleakFormatError:
        tok = tok or self.peek()
        return PleakFormatError(f"{self.source}:{tok.line}: {msg}")

    def expect_sym(self, sym: str, what: str) -> _Tok:
        tok = self.next()
        if tok.kind != "sym" or tok.text != sym:
            raise self.error(f"expected '{sym}' {what}, found {_show(tok)}", tok)
        return tok

    def number(self, what: str) -> float:
        tok = self.next()
        if tok.kind != "num":
            raise self.error(f"expected a number ({what}), found {_show(tok)}", tok)
        value = float(tok.text)
        if not math.isfinite(value):
            raise self.error(f"{tok.text} ({what}) overflows float64 (largest about 1.8e308)", tok)
        if value == 0 and re.search(r"[1-9]", tok.text.lower().partition("e")[0]):
            raise self.error(f"{tok.text} ({what}) underflows float64 to 0 (smallest about 5e-324)", tok)
        return value

    def integer(self, what: str) -> int:
        tok = self.next()
        if tok.kind != "num" or not re.fullmatch(r"\+?\d+", tok.text):
            raise self.error(f"expected a non-negative integer ({what}), found {_show(tok)}", tok)
        return int(tok.text)

    def is_sym(self, sym: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "sym" and tok.text == sym

    def is_word(self, *words: str, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok.kind == "id" and tok.text.lower() in {w.lower() for w in words}


def _show(tok: _Tok) -> str:
    return "end of file" if tok.kind == "end" else repr(tok.text)


def _value(tok: _Tok):
    """A set element: quoted string -> str, integer -> int (PLEAK's ``quotedString``)."""
    if tok.kind == "str":
        return tok.text[1:-1]
    if tok.kind == "num" and re.fullmatch(r"[+-]?\d+", tok.text):
        return int(tok.text)
    return None


# ------------------------------------------------------------------------------------------
# Attacker knowledge
# ------------------------------------------------------------------------------------------
_KINDS = (
    "exact", "none", "total", "totalUnif", "range", "rangeUnif", "set", "setUnif",
    "setPrior", "rangePrior", "normal",
)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What the attacker knows about one column (one statement of a PLEAK ``.att`` file).

    Attributes
    ----------
    column : str
        ``table.column``.
    kind : str
        PLEAK's keyword (``"rangeUnif"``, ``"normal"``, ...).
    args : tuple
        The statement's arguments as read (``normal``: ``(mu, variance)``; ``setPrior``:
        ``((value, p), ...)``; ``rangePrior``: ``(lb, ((ub, p), ...))``).
    line : int
        Line of the statement in its file.
    """

    column: str
    kind: str
    args: tuple
    line: int
    source: str = field(default="<string>", compare=False)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"

    @property
    def has_distribution(self) -> bool:
        """True if the statement gives a distribution (the ``...Unif``, ``...Prior``, ``normal``)."""
        return self.kind in ("totalUnif", "rangeUnif", "setUnif", "setPrior", "rangePrior", "normal")

    @property
    def numeric(self) -> bool:
        """True if the column's values are numbers (so ``approx r`` makes sense)."""
        if self.kind in ("range", "rangeUnif", "rangePrior", "normal"):
            return True
        if self.kind in ("set", "setUnif"):
            return all(isinstance(v, int) for v in self.args)
        if self.kind == "setPrior":
            return all(isinstance(v, int) for v, _ in self.args)
        return False

    def values(self) -> list:
        """The finite set of values (for set-like knowledge)."""
        if self.kind in ("set", "setUnif"):
            return list(self.args)
        if self.kind == "setPrior":
            return [v for v, _ in self.args]
        if self.kind in ("total", "totalUnif"):
            return [f"#{i}" for i in range(1, self.args[0] + 1)]
        raise ParameterError(f"{self.where}: '{self.kind}' knowledge is not a finite set")

    def prior(self, *, discrete: bool = False) -> Prior:
        """The garesearch prior this knowledge describes (see the module table).

        Parameters
        ----------
        discrete : bool
            Use the discrete metric (distance 1 between different values) even for numeric
            values: PLEAK's L0 norm for ``exact`` goals.

        Raises
        ------
        ParameterError
            If the statement gives no distribution (``range``, ``set``, ``total``,
            ``exact``, ``none``).
        """
        k = self.kind
        if not self.has_distribution:
            raise ParameterError(f"{self.where}: '{k}' knowledge gives no distribution for {self.column}")
        try:
            return self._prior(discrete)
        except ParameterError as exc:  # a prior garesearch cannot represent: say where it was read
            raise PleakFormatError(f"{self.where}: '{k}' for {self.column}: {exc}") from None

    def _prior(self, discrete: bool) -> Prior:
        k, a = self.kind, self.args
        if k == "rangeUnif":
            return Uniform(a[0], a[1])
        if k == "normal":
            return Normal(a[0], math.sqrt(a[1]))
        if k == "rangePrior":
            lb, pairs = a
            return PiecewiseUniform([lb] + [ub for ub, _ in pairs], _normalised([p for _, p in pairs]))
        if k == "setPrior":
            keys, probs = [v for v, _ in a], _normalised([p for _, p in a])
        else:  # setUnif, totalUnif
            keys = self.values()
            probs = [1.0 / len(keys)] * len(keys)
        if discrete:
            keys = [str(v) for v in keys]
        return Categorical(dict(zip(keys, probs, strict=True)))

    def diameter(self, *, discrete: bool = False) -> float:
        """Largest distance between two values the attacker considers possible (Sec. 3.2's R)."""
        k, a = self.kind, self.args
        if k in ("exact",):
            return 0.0
        if discrete or k in ("total", "totalUnif") or not self.numeric:
            return 1.0
        if k in ("range", "rangeUnif"):
            return a[1] - a[0]
        if k == "rangePrior":
            return a[1][-1][0] - a[0]
        if k in ("set", "setUnif", "setPrior"):
            vals = self.values()
            return float(max(vals) - min(vals))
        if k == "normal":
            return math.inf
        raise ParameterError(
            f"no bound on {self.column}'s values is known ('{k}'); give 'range lb ub' or a "
            "prior for it in the attacker file"
        )


def _normalised(ps):
    total = math.fsum(ps)
    return [p / total for p in ps]


def _check_probs(stream: _Stream, pairs, tok: _Tok, what: str):
    ps = [p for _, p in pairs]
    if any(not 0 <= p <= 1 for p in ps):
        raise stream.error(f"{what}: probabilities must lie in [0, 1]; got {ps}", tok)
    total = math.fsum(ps)
    if abs(total - 1) > _PROB_TOL:
        raise stream.error(f"{what}: probabilities must sum to 1; they sum to {total:.10g}", tok)


def _set_values(stream: _Stream, kw: _Tok) -> tuple:
    vals = []
    while stream.peek().kind in ("str", "num"):
        if len(vals) >= _MAX_VALUES:
            raise stream.error(f"'{kw.text}': more than {_MAX_VALUES} values", kw)
        tok = stream.next()
        v = _value(tok)
        if v is None:
            raise stream.error(f"'{kw.text}': set elements are quoted strings or integers; got {tok.text}", tok)
        vals.append(v)
    if not vals:
        raise stream.error(f"'{kw.text}' needs at least one value", kw)
    _same_types(stream, kw, vals)
    if len(set(vals)) != len(vals):
        raise stream.error(f"'{kw.text}': repeated value", kw)
    return tuple(vals)


def _same_types(stream, kw, vals):
    if len({type(v) for v in vals}) > 1:
        raise stream.error(f"'{kw.text}': do not mix quoted strings and integers in one set", kw)


def _pair(stream: _Stream, kw: _Tok, first):
    stream.expect_sym("(", f"to open a pair of '{kw.text}'")
    x = first()
    stream.expect_sym(",", f"between the value and its probability in '{kw.text}'")
    p = stream.number("a probability")
    stream.expect_sym(")", f"to close a pair of '{kw.text}'")
    return x, p


def _knowledge(stream: _Stream, column: str, col_tok: _Tok) -> Knowledge:
    kw = stream.next()
    if kw.kind != "id" or kw.text not in _KINDS:
        raise stream.error(
            f"unknown attacker knowledge {_show(kw)} for {column}; expected one of {', '.join(_KINDS)}", kw
        )
    k = kw.text
    if k in ("exact", "none"):
        args: tuple = ()
    elif k in ("total", "totalUnif"):
        n = stream.integer(f"'{k}' needs the number of values")
        if n < 1:
            raise stream.error(f"'{k}' needs at least one value; got {n}", kw)
        if k == "totalUnif" and n > _MAX_VALUES:
            raise stream.error(
                f"'totalUnif' of more than {_MAX_VALUES} values; for an attribute with that many "
                "equally likely values give 'total n' (the worst prior over its range)", kw
            )
        args = (n,)
    elif k in ("range", "rangeUnif"):
        lb, ub = stream.number("lower bound"), stream.number("upper bound")
        if not ub > lb:
            raise stream.error(f"'{k}': the upper bound must exceed the lower bound; got {lb} {ub}", kw)
        args = (lb, ub)
    elif k in ("set", "setUnif"):
        args = _set_values(stream, kw)
    elif k == "setPrior":
        def elem():
            tok = stream.next()
            v = _value(tok)
            if v is None:
                raise stream.error(f"'setPrior': values are quoted strings or integers; got {_show(tok)}", tok)
            return v

        pairs = []
        while stream.is_sym("("):
            if len(pairs) >= _MAX_VALUES:
                raise stream.error(f"'setPrior': more than {_MAX_VALUES} values", kw)
            pairs.append(_pair(stream, kw, elem))
        if not pairs:
            raise stream.error("'setPrior' needs at least one pair ('value', probability)", kw)
        _same_types(stream, kw, [v for v, _ in pairs])
        if len({v for v, _ in pairs}) != len(pairs):
            raise stream.error("'setPrior': repeated value", kw)
        _check_probs(stream, pairs, kw, "setPrior")
        args = tuple(pairs)
    elif k == "rangePrior":
        lb = stream.number("lower bound of 'rangePrior'")
        pairs = []
        while stream.is_sym("("):
            if len(pairs) >= _MAX_VALUES:
                raise stream.error(f"'rangePrior': more than {_MAX_VALUES} bins", kw)
            pairs.append(_pair(stream, kw, lambda: stream.number("an upper bound")))
        if not pairs:
            raise stream.error("'rangePrior' needs at least one pair (upper bound, probability)", kw)
        ubs = [ub for ub, _ in pairs]
        if any(b <= a for a, b in zip([lb, *ubs], ubs, strict=False)):
            raise stream.error(f"'rangePrior': the bounds {lb}, {ubs} must increase strictly", kw)
        _check_probs(stream, pairs, kw, "rangePrior")
        args = (lb, tuple(pairs))
    else:  # normal
        mu = stream.number("the mean of 'normal'")
        var = stream.number("the variance of 'normal'")
        if not var > 0:
            raise stream.error(f"'normal mu var': the variance must be > 0; got {var}", kw)
        args = (mu, var)
    return Knowledge(column, k, args, col_tok.line, stream.source)


def parse_attacker(text: str, *, source: str = "<string>") -> dict[str, Knowledge]:
    """Read a PLEAK attacker file (``.att``) given as text.

    Grammar (PLEAK ``banach/ParserQ.hs``, ``attacker`` / ``varStateStmt``): statements
    ``table.column <knowledge>;`` with the knowledge keywords of the module docstring.

    Returns
    -------
    dict
        ``{column: Knowledge}`` in file order.

    Raises
    ------
    PleakFormatError
        With ``source:line:`` and what was expected, for any malformed statement, a
        probability list that does not sum to 1 (tolerance 1e-6, as PLEAK), or a column
        given twice.

    Examples
    --------
    >>> know = parse_attacker("emp.salary rangeUnif 1000 3000; cat.color setUnif 'red' 'black';")
    >>> know["emp.salary"].kind, know["emp.salary"].args, know["cat.color"].args
    ('rangeUnif', (1000.0, 3000.0), ('red', 'black'))
    """
    return _parse_attacker(_Stream(_text_chunks(text), source))


def _parse_attacker(stream: _Stream) -> dict[str, Knowledge]:
    out: dict[str, Knowledge] = {}
    while stream.peek().kind != "end":
        col = stream.next()
        if col.kind != "id":
            raise stream.error(f"expected a column name (table.column), found {_show(col)}", col)
        if col.text in out:
            raise stream.error(f"{col.text} is described twice (first on line {out[col.text].line})", col)
        know = _knowledge(stream, col.text, col)
        stream.expect_sym(";", f"after the statement for {col.text}")
        out[col.text] = know
    return out


def read_attacker(path: str | Path) -> dict[str, Knowledge]:
    """Read a PLEAK attacker file from disk (see :func:`parse_attacker`).

    Examples
    --------
    >>> from garesearch.app.publish import packaged_examples
    >>> know = read_attacker(packaged_examples() / "cats.att")  # the cats of Sec. 6.1
    >>> sorted(know), know["cat.color"].kind
    (['cat.cat_id', 'cat.color', 'cat.gender'], 'setPrior')
    """
    path = Path(path)
    return _parse_attacker(_Stream(_file_chunks(path), str(path)))


# ------------------------------------------------------------------------------------------
# Goals
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Term:
    """One goal term: ``column(s) <precision>`` (PLEAK's ``Exact``, ``Approx r``,
    ``ApproxWrtLp p r``, ``ApproxWrtLinf r``, ``None``).

    ``norm`` is 1 for ``approx``, ``p`` for ``approxWrtLp(p)``, ``inf`` for ``approxWrtLinf``
    and 0 for ``exact``; ``r`` is 0 for ``exact``.
    """

    columns: tuple[str, ...]
    kind: str  # "exact" | "approx" | "none"
    r: float
    norm: float
    line: int
    source: str = field(default="<string>", compare=False)

    @property
    def where(self) -> str:
        """``source:line`` of the term, for messages."""
        return f"{self.source}:{self.line}"


@dataclass(frozen=True)
class And:
    """Conjunction of goals: the attacker must guess every part (Sec. 4.2)."""

    parts: tuple


@dataclass(frozen=True)
class Or:
    """Disjunction of goals: the attacker wins by guessing any part (Sec. 4.3)."""

    parts: tuple


_STATE_WORDS = ("exact", "none", "approx", "approxWrtLp", "approxWrtLinf")


def _goal_state(stream: _Stream, columns: tuple[str, ...], first: _Tok) -> Term:
    kw = stream.next()
    if kw.kind != "id" or kw.text not in _STATE_WORDS:
        raise stream.error(
            f"expected a goal precision for {', '.join(columns)} ({', '.join(_STATE_WORDS)}), found {_show(kw)}",
            kw,
        )
    k = kw.text
    if k in ("exact", "none"):
        if len(columns) > 1:
            raise stream.error(f"'{k}' applies to one column; got ({', '.join(columns)})", kw)
        return Term(columns, k, 0.0, 0.0, first.line, stream.source)
    if k == "approx":
        norm = 1.0
        if len(columns) > 1:
            raise stream.error("'approx r' applies to one column; use approxWrtLinf r for a box", kw)
    elif k == "approxWrtLp":
        stream.expect_sym("(", "after approxWrtLp")
        norm = stream.number("the p of approxWrtLp(p)")
        stream.expect_sym(")", "after approxWrtLp(p")
        if not norm >= 1:
            raise stream.error(f"approxWrtLp(p) needs p >= 1; got {norm}", kw)
    else:
        norm = math.inf
    r = stream.number(f"the precision r of '{k}'")
    if not r >= 0:
        raise stream.error(f"the precision r must be >= 0; got {r}", kw)
    return Term(columns, "approx", r, norm, first.line, stream.source)


def _goal_term(stream: _Stream):
    tok = stream.peek()
    if tok.kind == "sym" and tok.text == "(":
        # a column tuple "(c1, c2) approxWrt..." or a parenthesised formula
        j, cols = 1, []
        while stream.peek(j).kind == "id" and not stream.is_word("and", "or", k=j):
            cols.append(stream.peek(j).text)
            if stream.is_sym(",", j + 1):
                j += 2
                continue
            if stream.is_sym(")", j + 1) and stream.is_word(*_STATE_WORDS, k=j + 2):
                stream.skip(j + 2)
                return _goal_state(stream, tuple(cols), tok)
            break
        stream.next()
        stream.depth += 1
        if stream.depth > _MAX_NESTING:
            raise stream.error(
                f"parentheses nest more than {_MAX_NESTING} deep; write the goal flatter (AND and "
                "OR are associative)", tok
            )
        inner = _goal_or(stream)
        stream.expect_sym(")", "to close '('")
        stream.depth -= 1
        return inner
    if tok.kind != "id":
        raise stream.error(f"expected a column name or '(', found {_show(tok)}")
    stream.next()
    return _goal_state(stream, (tok.text,), tok)


def _goal_and(stream: _Stream):
    parts = [_goal_term(stream)]
    while stream.is_word("and"):
        stream.next()
        parts.append(_goal_term(stream))
    return parts[0] if len(parts) == 1 else And(tuple(parts))


def _goal_or(stream: _Stream):
    parts = [_goal_and(stream)]
    while stream.is_word("or"):
        stream.next()
        parts.append(_goal_and(stream))
    return parts[0] if len(parts) == 1 else Or(tuple(parts))


def _skip_cost(stream: _Stream):
    if stream.is_word("cost"):
        stream.next()
        stream.number("the cost")


def _leak_blocks(stream: _Stream):
    blocks = []
    while stream.is_word("leak"):
        stream.next()
        terms = []
        while stream.peek().kind == "id" and not stream.is_word("cost", "leak"):
            col = stream.next()
            terms.append(_goal_state(stream, (col.text,), col))
            stream.expect_sym(";", f"after the statement for {col.text}")
        if not terms:
            raise stream.error("a 'leak' block needs at least one 'column precision;' statement")
        _skip_cost(stream)
        blocks.append(terms[0] if len(terms) == 1 else And(tuple(terms)))
    return blocks[0] if len(blocks) == 1 else Or(tuple(blocks))


def parse_goal(text: str, *, source: str = "<string>"):
    """Read an attacker goal in one of PLEAK's three notations.

    - a formula: ``cat.gender exact AND cat.color exact`` (``AND`` binds tighter than
      ``OR``, parentheses group; PLEAK ``banach/ParserQ.hs`` ``cExpr``), optionally
      followed by ``cost c``;
    - ``SELECT <formula> FROM ... [WHERE ...];`` (PLEAK's ``*_attacker_goal.sql``; the
      ``FROM``/``WHERE`` part selects the sensitive rows and is not needed here);
    - ``leak col precision; ... cost c`` blocks: each block is an AND, several blocks an OR.

    Returns
    -------
    Term, And or Or

    Raises
    ------
    PleakFormatError
        With ``source:line:`` for malformed input.

    Examples
    --------
    >>> goal = parse_goal("cat.gender exact OR cat.color exact AND emp.salary approx 100")
    >>> type(goal).__name__, [type(part).__name__ for part in goal.parts]  # AND binds tighter
    ('Or', ['Term', 'And'])
    """
    return _parse_goal(_Stream(_text_chunks(text), source))


def _parse_goal(stream: _Stream):
    if stream.peek().kind == "end":
        raise stream.error("the goal is empty")
    if stream.is_word("leak"):
        goal = _leak_blocks(stream)
    else:
        select = stream.is_word("select")
        if select:
            stream.next()
        goal = _goal_or(stream)
        if select:
            if not stream.is_word("from"):
                raise stream.error(f"expected FROM after the goal formula, found {_show(stream.peek())}")
            while stream.peek().kind != "end" and not stream.is_sym(";"):
                stream.next()
        if stream.is_sym(";"):
            stream.next()
        _skip_cost(stream)
    if stream.peek().kind != "end":
        raise stream.error(f"unexpected {_show(stream.peek())} after the goal (missing AND/OR?)")
    return goal


def read_goal(path: str | Path):
    """Read an attacker goal from disk (see :func:`parse_goal`).

    Examples
    --------
    >>> from garesearch.app.publish import packaged_examples
    >>> goal = read_goal(packaged_examples() / "cats_color.plc")  # a leak ... cost block
    >>> goal.columns, goal.kind
    (('cat.color',), 'exact')
    """
    path = Path(path)
    return _parse_goal(_Stream(_file_chunks(path), str(path)))
