"""mxforge's exceptions.

Every failure of the C library surfaces as one of these, carrying the
library's one-line message unchanged (``str(error)``) and its ``mxf_status``
(``error.status``, an int; ``error.status_name``, e.g. "compile error").
Argument checks done in Python raise ``ArgumentError`` (a ``ValueError``) or
``ArgumentTypeError`` (a ``TypeError``), so ``except mxforge.Error`` catches
everything the package raises, and ``except ValueError`` what a caller would
expect from a bad argument.

    Error
    ├── LibraryNotFoundError   libmxforge.so could not be found or loaded
    ├── SpecError (ValueError) a malformed spec, or a spec for another op
    ├── ArgumentError (ValueError)      a bad shape, stride, row count, device
    ├── ArgumentTypeError (TypeError)   a wrong dtype or array type
    ├── NotFoundError          strict mode: no bundle holds the kernel
    ├── CompileError           the JIT failed
    ├── BundleError            an unreadable, damaged or foreign bundle
    ├── LaunchError            the C library refused or failed a launch
    ├── DeviceError            the device could not be opened, or copy/alloc failed
    ├── VersionError           the library's C API major version is not ours
    └── InternalError          out of memory, or a bug (the message names it)
"""

# mxf_status values (include/mxforge/mxforge.h).
SUCCESS = 0
INVALID_ARGUMENT = 1
NOT_FOUND = 2
COMPILE = 3
BUNDLE = 4
DEVICE = 5
VERSION = 6
INTERNAL = 7

_STATUS_NAMES = {
    SUCCESS: "success",
    INVALID_ARGUMENT: "invalid argument",
    NOT_FOUND: "not found",
    COMPILE: "compile error",
    BUNDLE: "bundle error",
    DEVICE: "device error",
    VERSION: "version mismatch",
    INTERNAL: "internal error",
}


class Error(Exception):
    """Base of every exception mxforge raises."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.message = message
        self.status = status

    @property
    def status_name(self):
        return _STATUS_NAMES.get(self.status, "no status")


class LibraryNotFoundError(Error):
    pass


class SpecError(Error, ValueError):
    pass


class ArgumentError(Error, ValueError):
    pass


class ArgumentTypeError(Error, TypeError):
    pass


class NotFoundError(Error):
    pass


class CompileError(Error):
    pass


class BundleError(Error):
    pass


class LaunchError(Error):
    pass


class DeviceError(Error):
    pass


class VersionError(Error):
    pass


class InternalError(Error):
    pass


# What a status means when the call does not say otherwise. INVALID_ARGUMENT
# is the caller's: a spec call maps it to SpecError, a launch to LaunchError.
_BY_STATUS = {
    NOT_FOUND: NotFoundError,
    COMPILE: CompileError,
    BUNDLE: BundleError,
    DEVICE: DeviceError,
    VERSION: VersionError,
    INTERNAL: InternalError,
}


def error_for(status, message, invalid_argument=ArgumentError):
    """The exception for a failed C call: its class from the status (and,
    for MXF_ERROR_INVALID_ARGUMENT, from what the call was doing)."""
    cls = invalid_argument if status == INVALID_ARGUMENT else _BY_STATUS.get(status, InternalError)
    return cls(message, status)
