"""Bottlerocket's own types for the settings outside `settings.kubernetes` that userData commonly sets.

Karpenter passes these tables through untyped (v0.14 and later), so nothing checks them before the node boots; there
Bottlerocket's API deserializes the whole userData into its settings model, and one value of the wrong type fails
early-boot-config ("Json deserialize error: invalid type ...") and every setting with it: the node never joins.
Sources: bottlerocket-os/bottlerocket-settings-sdk `bottlerocket-settings-models/settings-extensions/`
(kernel/src/lib.rs `KernelSettingsV1`, `KmodSetting`; pki/src/lib.rs `PemCertificate`; host-containers/src/lib.rs
`HostContainer`; bootstrap-containers/src/lib.rs `BootstrapContainer`; container-registry/src/lib.rs and de.rs
`RegistrySettingsV1`, `deserialize_mirrors`). Pure data in, issues out.
"""

from __future__ import annotations

from typing import Any, Iterator

# Key path under `settings` ("*": any name) -> the TOML type Bottlerocket's model wants.
FIELD_TYPES: dict[tuple[str, ...], str] = {
    ("kernel", "lockdown"): "str",
    ("kernel", "sysctl", "*"): "str",  # HashMap<SysctlKey, String>: "1048576", not 1048576
    ("kernel", "modules", "*", "allowed"): "bool",
    ("kernel", "modules", "*", "autoload"): "bool",
    ("pki", "*", "data"): "str",
    ("pki", "*", "trusted"): "bool",
    ("host-containers", "*", "source"): "str",
    ("host-containers", "*", "enabled"): "bool",
    ("host-containers", "*", "superpowered"): "bool",
    ("host-containers", "*", "user-data"): "str",
    ("host-containers", "*", "command"): "list[str]",
    ("bootstrap-containers", "*", "source"): "str",
    ("bootstrap-containers", "*", "mode"): "str",
    ("bootstrap-containers", "*", "user-data"): "str",
    ("bootstrap-containers", "*", "essential"): "bool",
    ("bootstrap-containers", "*", "command"): "list[str]",
}

# Tables of named entries: each entry must itself be a table (`[settings.pki.<name>]`).
NAMED_TABLES = (("kernel", "modules"), ("pki",), ("host-containers",), ("bootstrap-containers",))

# BootstrapMode (bottlerocket-modeled-types): the only values a bootstrap container's `mode` takes.
BOOTSTRAP_MODES = ("off", "once", "always")

_KIND = {str: "a string", int: "an integer", float: "a float", list: "an array", dict: "a table"}
_EXPECTED = {"str": "a string", "bool": "a boolean", "list[str]": "an array of strings"}


def _quoted(key: str) -> str:
    """A key as TOML writes it: quoted when it is not a bare key (`"vm.max_map_count"`)."""
    return key if key and all(c.isalnum() or c in "-_" for c in key) else f'"{key}"'


def dotted(path: tuple[str, ...]) -> str:
    """`settings.kernel.sysctl."vm.max_map_count"`."""
    return "settings." + ".".join(_quoted(k) for k in path)


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return next((name for t, name in _KIND.items() if isinstance(value, t)), "a date/time")


def _fits(value: Any, want: str) -> bool:
    if want == "bool":
        return isinstance(value, bool)
    if want == "str":
        return isinstance(value, str)
    return isinstance(value, list) and all(isinstance(x, str) for x in value)


def _walk(table: dict, pattern: tuple[str, ...], path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """(path, value) of every key of `table` matching `pattern`."""
    head, rest = pattern[0], pattern[1:]
    keys = table.keys() if head == "*" else ([head] if head in table else [])
    for key in keys:
        value = table[key]
        if not rest:
            yield path + (key,), value
        elif isinstance(value, dict):
            yield from _walk(value, rest, path + (key,))


def _hint(path: tuple[str, ...], value: Any, want: str) -> str:
    if want == "str" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return f'\nhelp: quote it: "{path[-1]}" = "{value}"'
    if want == "bool" and isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return f"\nhelp: write {path[-1]} = {value.strip().lower()} (a TOML boolean, without quotes)"
    return ""


def problems(settings: dict) -> Iterator[tuple[tuple[str, ...], str]]:
    """(key path under `settings`, message) of every value Bottlerocket's model cannot deserialize."""
    for pattern, want in FIELD_TYPES.items():
        for path, value in _walk(settings, pattern):
            if not _fits(value, want):  # the headline names the key; a note the whole path
                yield path, (f"{_quoted(path[-1])} is {kind(value)} but Bottlerocket expects {_EXPECTED[want]}"
                             f"{_hint(path, value, want)}\nnote: the setting is {dotted(path)}")
            elif path[0] == "bootstrap-containers" and path[-1] == "mode" and value not in BOOTSTRAP_MODES:
                yield path, (f"{dotted(path)} is {value!r}: Bottlerocket accepts "
                             f"{', '.join(BOOTSTRAP_MODES)}")
    for named in NAMED_TABLES:
        for path, value in _walk(settings, named + ("*",)):
            if not isinstance(value, dict):
                yield path, (f"{dotted(path)} is {kind(value)} but Bottlerocket expects a table of "
                             f"settings for `{path[-1]}`")
    registry = settings.get("container-registry")
    if isinstance(registry, dict) and "mirrors" in registry:
        yield from _mirror_problems(registry["mirrors"])


def _mirror_problems(mirrors: Any) -> Iterator[tuple[tuple[str, ...], str]]:
    """`mirrors` is an array of {registry, endpoint} tables, or (older form) a table of registry -> endpoints."""
    path = ("container-registry", "mirrors")
    if isinstance(mirrors, list):
        for i, mirror in enumerate(mirrors):
            if not isinstance(mirror, dict):
                yield path, f"settings.container-registry.mirrors[{i}] is {kind(mirror)} but Bottlerocket expects a table"
                continue
            if "registry" in mirror and not isinstance(mirror["registry"], str):
                yield path + ("registry",), (f"settings.container-registry.mirrors[{i}].registry is "
                                             f"{kind(mirror['registry'])} but Bottlerocket expects a string")
            if "endpoint" in mirror and not _fits(mirror["endpoint"], "list[str]"):
                yield path + ("endpoint",), (f"settings.container-registry.mirrors[{i}].endpoint is "
                                             f"{kind(mirror['endpoint'])} but Bottlerocket expects an array of URLs")
    elif isinstance(mirrors, dict):
        for registry, endpoints in mirrors.items():
            if not _fits(endpoints, "list[str]"):
                yield path + (registry,), (
                    f"{dotted(path + (registry,))} is {kind(endpoints)} but Bottlerocket expects "
                    "an array of endpoint URLs" + ("\nhelp: write [[settings.container-registry.mirrors]] with "
                                                   "registry = \"...\" and endpoint = [\"...\"]"
                                                   if registry in ("registry", "endpoint") else "") +
                    "\nnote: in the table form each key is a registry and its value the list of its mirrors")
    else:
        yield path, f"settings.container-registry.mirrors is {kind(mirrors)} but Bottlerocket expects an array of tables"
