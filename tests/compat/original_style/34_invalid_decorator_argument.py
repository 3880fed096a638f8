"""@Phylanx("PhySL") (a positional argument) is InvalidDecoratorArgumentError; an
unknown keyword is NotImplementedError."""
from phylanx import Phylanx
from phylanx.exceptions import InvalidDecoratorArgumentError

try:
    @Phylanx("PhySL")
    def f(x):
        return x
except InvalidDecoratorArgumentError:
    pass
else:
    raise AssertionError("a positional decorator argument was accepted")

try:
    @Phylanx(no_such_option=True)
    def g(x):
        return x
except NotImplementedError:
    pass
else:
    raise AssertionError("an unknown decorator keyword was accepted")
