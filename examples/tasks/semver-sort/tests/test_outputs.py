from pathlib import Path

OUTPUT = Path("/app/sorted.txt")
INPUT = Path(__file__).with_name("versions.txt")


def precedence_key(version):
    core = version.split("+", 1)[0]
    release, _, pre = core.partition("-")
    major, minor, patch = (int(x) for x in release.split("."))
    if not pre:
        return (major, minor, patch, 1, ())
    idents = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return (major, minor, patch, 0, idents)


def expected():
    unique = list(dict.fromkeys(v.strip() for v in INPUT.read_text().splitlines() if v.strip()))
    return sorted(unique, key=precedence_key)


def lines():
    return OUTPUT.read_text().splitlines()


def test_output_exists():
    assert OUTPUT.is_file()


def test_same_versions_without_duplicates():
    got = lines()
    assert len(got) == len(set(got))
    assert set(got) == set(expected())


def test_semver_precedence_order():
    assert lines() == expected()


def test_prerelease_examples_from_the_spec():
    got = lines()
    spec = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta",
            "1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    assert [v for v in got if v in spec] == spec
