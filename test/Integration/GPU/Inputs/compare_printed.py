"""Compares the results two kiln-run invocations printed (standard library
only): same result names and types, and every value within
(2 n + 32) u max|ref| + 1e-6 |ref| of the reference (u = 2^-24: two
summation orders of n terms; 1e-6: the 6 significant digits printed).

Usage: compare_printed.py REFERENCE OTHER N
"""
import re
import sys


def parse(path):
    results, current = [], None
    for line in open(path):
        header = re.match(r"(result\d+): (tensor<[^>]*>)", line)
        if header:
            current = (header.group(1), header.group(2), [])
            results.append(current)
        elif current is not None:
            current[2].extend(float(v) for v in
                              re.findall(r"[-+]?[\d.]+(?:e[-+]?\d+)?", line))
    return results


def main():
    reference, other, n = parse(sys.argv[1]), parse(sys.argv[2]), int(sys.argv[3])
    assert [r[:2] for r in reference] == [r[:2] for r in other], "signatures differ"
    for (name, type_, a), (_, _, b) in zip(reference, other):
        assert len(a) == len(b) and a, "no values"
        scale = max(abs(x) for x in a)
        worst = max(abs(x - y) / ((2 * n + 32) * 2.0 ** -24 * scale + 1e-6 * abs(x))
                    for x, y in zip(a, b))
        print("%s %s: %d values, %s (worst |diff| / tol = %.3f)" %
              (name, type_, len(a), "PASS" if worst <= 1 else "FAIL", worst))


if __name__ == "__main__":
    main()
