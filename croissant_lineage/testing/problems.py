"""Invented problems with a computed answer, written as items of each key kind.

A :class:`Problem` holds two numbers ``a`` and ``b`` and an operation; its answer is
computed from them, so a derivation that changes a number recomputes the answer (a
perturbation) and a template instance is a new problem of the same operation. One
problem is written (:func:`contents`) as an item of a shape (:data:`SHAPES`):

* ``number``: a word problem whose worked solution ends with ``#### <answer>``, the answer
  written in one of the forms benchmarks use (``1,234``, ``$1,234``, ``1234.0``, ``1234``,
  ``1.234e3``; fractions as ``3/4`` or ``0.750000``);
* ``text``: a question with four options, the key the answer's text, a rationale;
* ``set``: a question whose key is a set of acceptable answers, a rationale;
* ``code``: a Python function's prompt, its reference solution (the key) and the tests
  that grade it (``check(candidate)``).

Each can be written *annotated* (sub-answers inserted into the solution; for code, tests
added) and *translated* (natural-language words changed, numbers kept; code rewritten
in JavaScript).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

__all__ = ["SHAPES", "Contents", "Problem", "contents", "number_text", "same_key"]

#: The shapes of item a shaped synthetic family can have (its key kind).
SHAPES = ("number", "text", "set", "code")

#: The key kind of each shape (the spec's key role ``kind``).
KEY_KIND = {"number": "number", "text": "text", "set": "set", "code": "tests"}

_SYMBOL = {"times": "*", "plus": "+", "minus": "-", "per": "/"}
_TESTED = (1, 2, 3)
_ADDED_TESTS = (7, 10)


@dataclass(frozen=True)
class Problem:
    """One invented problem.

    Attributes:
        name: The item's own word (a code item's function name, a set item's unit).
        lead: Words before ``a`` in the stem.
        tail: Words after ``b`` in the stem.
        note: Words that open the worked solution.
        a, b: The stem's numbers (``b`` >= 2).
        op: ``times``, ``plus``, ``minus`` or ``per`` (the ratio ``a/b``).
    """

    name: str
    lead: str
    tail: str
    note: str
    a: int
    b: int
    op: str

    @property
    def value(self) -> Fraction:
        """The answer: ``a op b``."""
        a, b = self.a, self.b
        return {"times": Fraction(a * b), "plus": Fraction(a + b), "minus": Fraction(a - b), "per": Fraction(a, b)}[self.op]

    def run(self, x: int) -> int:
        """What the code item's reference solution returns for ``x``."""
        a, b = self.a, self.b
        return {"times": x * a + b, "plus": x + a + b, "minus": x * a - b, "per": x * a // b}[self.op]

    def perturbed(self, delta: int) -> Problem:
        """The same problem with ``a`` changed by ``delta`` (not 0): its answer differs."""
        return replace(self, a=self.a + delta)


@dataclass(frozen=True)
class Contents:
    """An item's questioned contents as one dataset writes them.

    Attributes:
        stem: The question or prompt.
        options: The options (``text`` items only; None elsewhere).
        key: The key as written: a number's text, a text, a list of answers, a solution.
        solution: The worked solution or rationale (``code``: the reference solution).
        tests: The tests (``code`` only).
    """

    stem: str
    options: list[str] | None
    key: Any
    solution: str | None
    tests: str | None


def number_text(value: Fraction, form: int) -> str:
    """``value`` written in form ``form`` (any integer: taken modulo the forms)."""
    if value.denominator != 1:
        ratio = (f"{value.numerator}/{value.denominator}", f"{float(value):.6f}")
        return ratio[form % len(ratio)]
    v = value.numerator
    sign, m = ("-" if v < 0 else ""), abs(v)
    forms = (f"{sign}{m:,}", f"{sign}${m:,}", f"{v}.0", str(v), f"{v / 1000!r}e3")
    return forms[form % len(forms)]


def _plain(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def answer_text(value: Fraction, vocabulary: list[str]) -> str:
    """A ``text`` answer: two words picked by the value (same value, same text)."""
    n = len(vocabulary)
    i = (value.numerator * 7919 + value.denominator * 104_729) % n
    return f"{vocabulary[i]} {vocabulary[(i * 31 + 7) % n]}"


def _stem(p: Problem) -> str:
    text = f"{p.lead} {p.a} {p.op} {p.b} {p.tail}"
    return text[:1].upper() + text[1:] + "?"


def _code(p: Problem, annotated: bool) -> tuple[str, str, str]:
    expr = {"times": f"x * {p.a} + {p.b}", "plus": f"x + {p.a} + {p.b}", "minus": f"x * {p.a} - {p.b}",
            "per": f"x * {p.a} // {p.b}"}[p.op]
    prompt = f'def {p.name}(x):\n    """{p.lead} {p.a} {p.op} {p.b} {p.tail}."""\n'
    inputs = _TESTED + (_ADDED_TESTS if annotated else ())
    tests = "def check(candidate):\n" + "".join(f"    assert candidate({x}) == {p.run(x)}\n" for x in inputs)
    return prompt, f"    return {expr}\n", tests


def _js(p: Problem, annotated: bool) -> tuple[str, str, str]:
    expr = {"times": f"x * {p.a} + {p.b}", "plus": f"x + {p.a} + {p.b}", "minus": f"x * {p.a} - {p.b}",
            "per": f"Math.floor(x * {p.a} / {p.b})"}[p.op]
    prompt = f"function {p.name}(x) {{\n  /* {translate(p.lead)} {p.a} {translate(p.op)} {p.b} {translate(p.tail)}. */\n"
    inputs = _TESTED + (_ADDED_TESTS if annotated else ())
    tests = "const assert = require('node:assert');\n" + "".join(
        f"assert.strictEqual({p.name}({x}), {p.run(x)});\n" for x in inputs)
    return prompt, f"  return {expr};\n}}\n", tests


def translate(text: str) -> str:
    """A deterministic stand-in for a translation: each word changes (reversed, ``ek``
    added); punctuation, numbers (``1.2e3``) and tokens without a letter (``####``) stay."""
    out = []
    for token in text.split(" "):
        core = token.rstrip(".?,")
        if any(c.isalpha() for c in core) and not any(c.isdigit() for c in core) and "\n" not in core:
            token = core[::-1] + "ek" + token[len(core):]
        out.append(token)
    return " ".join(out)


def contents(p: Problem, shape: str, vocabulary: list[str], *, form: int = 0,
             annotated: bool = False, translated: bool = False) -> Contents:
    """Problem ``p`` written as an item of ``shape``.

    Args:
        vocabulary: The words text answers are picked from.
        form: Which written form of a number key (see :func:`number_text`).
        annotated: Sub-answers inserted into the solution (code: tests added).
        translated: Words translated (code: the item rewritten in JavaScript).
    """
    if shape == "code":
        prompt, solution, tests = (_js if translated else _code)(p, annotated)
        return Contents(prompt, None, solution, solution, tests)
    value, plain = p.value, _plain(p.value)
    step = f" First, {p.a} {_SYMBOL[p.op]} {p.b} = <<{p.a}{_SYMBOL[p.op]}{p.b}={plain}>>{plain}." if annotated else ""
    tr = translate if translated else (lambda s: s)
    options: list[str] | None = None
    if shape == "number":
        key: Any = number_text(value, form)
        solution = f"{p.note}.{step} So {p.a} {p.op} {p.b} is {plain}.\n#### {key}"
    elif shape == "text":
        key = answer_text(value, vocabulary)
        distractors = [answer_text(value + 1000 * k, vocabulary) for k in (1, 2, 3)]
        at = (p.a + p.b) % 4
        options = [tr(o) for o in [*distractors[:at], key, *distractors[at:]]]
        solution = f"{p.note}.{step} So the answer is {key}."
        key = tr(key)
    else:  # set
        key = [answer_text(value, vocabulary), plain, f"{plain} {p.name}"]
        solution = f"{p.note}.{step} So the answer is {plain} {p.name}."
        key = [tr(k) for k in key]
    return Contents(tr(_stem(p)), options, key, tr(solution), None)


def _norm(text: str) -> str:
    return " ".join(str(text).lower().split())


def same_key(shape: str, child: Contents, parent: Contents, *, translated: bool) -> bool | None:
    """Does the child's key equal the parent's, as key readers compare them (numbers by
    value, texts normalised, sets as sets, solutions with spaces collapsed; across a
    translation, a text key among its options by its option's place)? None where a
    translation makes them incomparable (sets, solutions, a text key not among its options)."""
    if shape == "number":
        return _number_value(child.key) == _number_value(parent.key)
    if translated:
        return _same_place(child, parent) if shape == "text" else None
    if shape == "set":
        return {_norm(k) for k in child.key} == {_norm(k) for k in parent.key}
    if shape == "code":
        return " ".join(str(child.key).split()) == " ".join(str(parent.key).split())
    return _norm(child.key) == _norm(parent.key)


def _same_place(child: Contents, parent: Contents) -> bool | None:
    """Are two text keys at the same place among as many options (None: one is not an option)?"""
    c_opts, p_opts = [_norm(o) for o in child.options or ()], [_norm(o) for o in parent.options or ()]
    if _norm(child.key) not in c_opts or _norm(parent.key) not in p_opts or len(c_opts) != len(p_opts):
        return None
    return c_opts.index(_norm(child.key)) == p_opts.index(_norm(parent.key))


def _number_value(text: str) -> Fraction:
    """The exact value of a :func:`number_text` text."""
    s = text.replace("$", "").replace(",", "")
    if "/" in s:
        num, den = s.split("/")
        return Fraction(int(num), int(den))
    if s.endswith("e3"):
        return Fraction(s[:-2]) * 1000
    return Fraction(s).limit_denominator(10_000)
