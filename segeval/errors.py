"""The one error family raised by the library; the CLI turns it into exit codes."""

from __future__ import annotations


class SegevalError(Exception):
    """Base class of every error segeval reports to a user (exit code 2 in the CLI)."""

    exit_code = 2


class InputError(SegevalError):
    """A file that cannot be read or a line that does not fit its format."""

    def __init__(
        self,
        path: str,
        problem: str,
        *,
        line: int | None = None,
        text: str | None = None,
        kind: str = "input",
    ) -> None:
        self.path = path
        self.line = line
        self.text = text
        self.problem = problem
        self.kind = kind
        where = path if line is None else f"{path}, line {line}"
        message = f"{where}: {problem}"
        if text is not None:
            shown = text if len(text) <= 200 else text[:200] + "..."
            message += f"\n  line {line}: {shown}"
        super().__init__(message)


    def __reduce__(self) -> tuple[object, ...]:
        # rebuild with the same fields, so the error survives being sent between processes
        return (_input_error, (self.path, self.problem, self.line, self.text, self.kind))


def _input_error(path: str, problem: str, line: int | None, text: str | None, kind: str) -> InputError:
    return InputError(path, problem, line=line, text=text, kind=kind)


class ParameterError(SegevalError, ValueError):
    """A parameter value outside its documented domain."""


def check_int(name: str, value: object, *, minimum: int) -> int:
    """Return ``value`` as an int, or raise a ParameterError worded like scikit-learn's."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise ParameterError(
            f"The '{name}' parameter must be an integer >= {minimum}. Got {value!r} instead."
        )
    return value


def check_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise a ParameterError."""
    if value not in choices:
        options = ", ".join(repr(c) for c in choices)
        raise ParameterError(f"The '{name}' parameter must be one of {options}. Got {value!r} instead.")
    return str(value)
