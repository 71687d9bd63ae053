#!/usr/bin/env python3
"""Adds the machine line ("// adaexplore: {...}", tuner/src/emit/header.hpp) to headers written
before 2026-12-06, from the header's own values, so that the CMake module and
`adaexplore-tuner configure` (which read only that line) can use them as pinned headers.

    tools/add-machine-line.py <header.hpp>...

Reads the old C++ layout the module used to read (namespace, "// Kernel:", "// Sizes:", "// Device:"
lines, `inline constexpr` constants, a multi-device header's `params_for` entries, a sized header's
`kSizes`), writes the line just before "#pragma once" and keeps every other byte; a line already
there is replaced, keeping its "macro_prefix". Prefer regenerating a header where its tuning
database is at hand (`adaexplore-tuner header --database <db> --spec <spec.json> --out <header>`):
that writes the line with everything else. Exits 1 naming the file when a header has no namespace
or no #pragma once (not a header AdaExplore wrote).
"""
import json
import re
import sys


def literal(text):
    text = text.strip()
    if text.startswith('"'):
        return json.loads(text)
    if re.fullmatch(r"-?[0-9]+(LL)?", text):
        return int(text.rstrip("L"))
    return float(text)


def machine_line(path, text):
    space = re.search(r"(?m)^[ \t]*namespace[ \t]+([A-Za-z_][A-Za-z0-9_:]*)[ \t]*\{", text)
    if not space or "#pragma once" not in text:
        sys.exit(f"{path}: no namespace or no #pragma once: not a header AdaExplore wrote")
    line = {"namespace": space.group(1), "tuned": False}
    old = re.search(r"(?m)^// adaexplore: (.*)$", text)
    try:
        old = json.loads(old.group(1)) if old else {}
    except ValueError:  # a malformed line is replaced
        old = {}
    if isinstance(old, dict) and isinstance(old.get("macro_prefix"), str):
        line["macro_prefix"] = old["macro_prefix"]
    kernel = re.search(r"//[ \t]*Kernel:[ \t]*([A-Za-z_][A-Za-z0-9_]*)(?: \(backend ([a-z]+)\))?", text)
    if kernel:
        line["kernel"] = kernel.group(1)
        if kernel.group(2):
            line["backend"] = kernel.group(2)
    tuned_on = []
    for device in re.findall(r"(?m)^//[ \t]*Device:[ \t]*(.*)$", text):
        device = re.match(r"(.*, compute capability [0-9.]+|.*)", device.strip()).group(1)
        if device not in tuned_on:
            tuned_on.append(device)
    struct = re.search(r"struct Params \{([^}]*)\}", text)
    if struct:  # a multi-device header
        names = [m for m in re.findall(r"[A-Za-z_][A-Za-z0-9_*]*[ \t]+([A-Za-z_][A-Za-z0-9_]*);", struct.group(1))
                 if m != "tuned"]
        devices = []
        for cc, values in re.findall(r"if \(cc == ([0-9]+)\) return Params\{[^,}]*,?([^}]*)\}", text):
            values = [literal(v) for v in values.split(",")]
            devices.append({"compute_capability": int(cc), "config": dict(zip(names, values))})
        fallback = re.search(r"return Params\{false,?([^}]*)\};[ \t]*// the defaults", text)
        line["config"] = dict(zip(names, [literal(v) for v in fallback.group(1).split(",")])) if fallback else {}
        line["devices"] = devices
    else:
        names, config = [], {}
        for name, value in re.findall(r"inline constexpr [A-Za-z_ *]+[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*=[ \t]*([^;\n]*);",
                                      text):
            if name == "kTuned":
                line["tuned"] = value.strip() == "true"
            elif name not in ("kSizeCount",):
                names.append(name)
                config[name] = literal(value)
        line["config"] = config
        sizes = re.search(r"(?m)^//[ \t]*Sizes:[ \t]*(.*)$", text)
        if sizes:
            labels = [s.strip() for s in sizes.group(1).split(";")]
            rows = re.findall(r"\{\{([^}]*)\}, \{([^}]*)\}\},[ \t]*//[ \t]*([^:\n]*)", text)
            line["sizes"] = []
            for values, params, label in rows:
                dims = [d.split("=")[0] for d in label.strip().split()]
                line["sizes"].append({"size": dict(zip(dims, [int(v) for v in values.split(",")])),
                                      "label": label.strip(),
                                      "config": dict(zip(names, [literal(v) for v in params.split(",")]))})
            if not rows:  # the labels alone
                line["sizes"] = [{"label": label} for label in labels]
    line["parameters"] = names
    if tuned_on and (line["tuned"] or "devices" in line):
        line["tuned_on"] = tuned_on
    return "// adaexplore: " + json.dumps(line, sort_keys=True, separators=(",", ":")) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        with open(path) as f:
            text = f.read()
        line = machine_line(path, text)
        text = re.sub(r"(?m)^// adaexplore: .*\n", "", text)
        at = text.index("#pragma once")
        with open(path, "w") as f:
            f.write(text[:at] + line + text[at:])
        print(f"{path}: {line.strip()}")


if __name__ == "__main__":
    main()
