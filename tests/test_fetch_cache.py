"""ArchiveCache: the one URL -> file mapping (mirror layout), its security, atomic and read-only writes."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from conftest import DATA_MIRROR
from reviewbot.errors import FetchError
from reviewbot.fetch import openwall as ow
from reviewbot.fetch.cache import ArchiveCache

BASE = "https://lists.openwall.net"


@pytest.fixture
def cache(tmp_path: Path) -> ArchiveCache:
    return ArchiveCache(tmp_path / "root", base_url=BASE)


@pytest.mark.parametrize(
    "path,rel",
    [
        ("/linux-kernel/", "linux-kernel/index.html"),
        ("/linux-kernel/2023/", "linux-kernel/2023/index.html"),
        ("/linux-kernel/2023/06/", "linux-kernel/2023/06/index.html"),
        ("/linux-kernel/2023/06/01/", "linux-kernel/2023/06/01/index.html"),
        ("/linux-kernel/2023/06/01/12", "linux-kernel/2023/06/01/12.html"),
        ("/linux-kernel/2019/08/23/1/1", "linux-kernel/2019/08/23/1/1"),
        ("/netdev/2020/01/02/3", "netdev/2020/01/02/3.html"),
    ],
)
def test_mirror_layout(cache, tmp_path, path, rel):
    assert cache.path_for(BASE + path) == tmp_path / "root" / rel


def test_every_mirror_file_is_reached_by_its_url():
    mirror = ArchiveCache(DATA_MIRROR, base_url=BASE, readonly=True)
    count = 0
    for line in (DATA_MIRROR / "manifest.tsv").read_text().splitlines()[1:]:
        path = line.split("\t")[1]
        url = BASE + path
        assert mirror.path_for(url).is_file(), url
        count += 1
    assert count == len((DATA_MIRROR / "manifest.tsv").read_text().splitlines()) - 1 > 300
    assert (
        mirror.get(BASE + "/linux-kernel/2019/08/23/1/1") == (DATA_MIRROR / "linux-kernel/2019/08/23/1/1").read_bytes()
    )
    assert mirror.headers(BASE + "/linux-kernel/2019/08/23/1/1")["Content-Length"] == "489"


@pytest.mark.parametrize(
    "url",
    [
        BASE + "/linux-kernel/../../etc/passwd",
        BASE + "/linux-kernel/2023/../../../etc/",
        BASE + "/linux-kernel/%2e%2e/%2e%2e/etc/",
        BASE + "/linux-kernel/2023/06/01/%2e%2e",
        BASE + "/%2Fetc/passwd",
        BASE + "//evil.example/linux-kernel/",
        "//evil.example/linux-kernel/",
        "https://evil.example/linux-kernel/2023/06/01/1",
        "https://lists.openwall.net.evil.example/linux-kernel/",
        "http://lists.openwall.net/linux-kernel/",  # other scheme
        "https://lists.openwall.net:8443/linux-kernel/",  # other port
        "https://user@lists.openwall.net/linux-kernel/",
        "/etc/passwd",
        "file:///etc/passwd",
        BASE + "/linux-kernel\\..\\..\\etc/",
        BASE + "/linux-kernel/2023/06/01/1\x00.html",
        BASE + "/linux-kernel/2023/06/01/1\n",
        BASE + "/linux-kernel/2023/06/01/1?x=../../a",
        BASE + "/linux-kernel/2023/06/01/1#frag",
        BASE + "/Linux-Kernel/2023/",
        BASE + "/linux-kernel/2023/06/01/1.html",
        BASE + "/linux-kernel/2023/06/01/index.html",
        BASE + "/linux-kernel/2023/6/1/",
        BASE + "/linux-kernel/2023/06/01/1/1/1",
        BASE + "/robots.txt",
        BASE + "/",
        BASE,
        "",
    ],
)
def test_crafted_urls_are_refused(cache, tmp_path, url):
    with pytest.raises(FetchError) as err:
        cache.path_for(url)
    assert isinstance(err.value, ValueError)
    assert url.replace("\x00", "") in str(err.value).replace("\\x00", "") or repr(url) in str(err.value)
    with pytest.raises(ValueError):
        cache.put(url, b"owned")
    assert not any(tmp_path.rglob("*")) or not any(p.is_file() for p in tmp_path.rglob("*"))


def test_crafted_links_inside_a_page_never_reach_the_disk(cache, tmp_path):
    """Links taken from a page are resolved with urljoin and then mapped: only archive URLs pass."""
    page_url = BASE + "/linux-kernel/2023/06/01/1"
    hrefs = [
        "../../../../../etc/passwd",
        "..%2f..%2f..%2fetc",
        "//evil.example/x",
        "/etc/passwd",
        "https://evil.example/linux-kernel/2023/06/01/1",
        "..\\..\\secret",
        "2",
        "1/1",
        "../../../2022/12/31/7",
    ]
    from urllib.parse import urljoin

    accepted = []
    for href in hrefs:
        try:
            accepted.append(cache.path_for(urljoin(page_url, href)))
        except ValueError:
            pass
    root = tmp_path / "root"
    assert accepted == [
        root / "linux-kernel/2023/06/01/2.html",
        root / "linux-kernel/2023/06/01/1/1",
        root / "linux-kernel/2022/12/31/7.html",
    ]


def test_put_get_roundtrip_and_atomic_replace(cache, tmp_path):
    url = BASE + "/linux-kernel/2023/06/01/1"
    assert cache.get(url) is None
    path = cache.put(url, b"first", mtime=1_000_000_000)
    assert path == tmp_path / "root/linux-kernel/2023/06/01/1.html"
    assert cache.get(url) == b"first"
    assert cache.mtime(url) == 1_000_000_000
    cache.put(url, b"second")
    assert cache.get(url) == b"second"
    # no temporary files left behind
    assert sorted(p.name for p in path.parent.iterdir()) == ["1.html"]


def test_put_is_atomic_for_concurrent_readers(cache):
    url = BASE + "/linux-kernel/2023/06/01/2"
    big_a, big_b = b"a" * 2_000_000, b"b" * 2_000_000
    cache.put(url, big_a)
    seen: set[bytes] = set()
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            data = cache.get(url)
            seen.add(data[:1] + data[-1:] + str(len(data)).encode())

    t = threading.Thread(target=reader)
    t.start()
    for i in range(20):
        cache.put(url, big_b if i % 2 else big_a)
    stop.set()
    t.join()
    assert seen <= {b"aa2000000", b"bb2000000"}


def test_failed_write_leaves_old_copy_and_no_temp(cache, monkeypatch):
    url = BASE + "/linux-kernel/2023/06/01/3"
    cache.put(url, b"old")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        cache.put(url, b"new")
    monkeypatch.undo()
    assert cache.get(url) == b"old"
    assert [p.name for p in cache.path_for(url).parent.iterdir()] == ["3.html"]


def test_readonly_never_writes(tmp_path):
    root = tmp_path / "ro"
    cache = ArchiveCache(root, base_url=BASE, readonly=True)
    assert cache.put(BASE + "/linux-kernel/2023/06/01/1", b"x") is None
    assert not root.exists()


def test_mirror_as_readonly_cache_is_untouched():
    before = {p: p.stat().st_mtime_ns for p in (DATA_MIRROR / "linux-kernel/2023/06/01").rglob("*")}
    cache = ArchiveCache(DATA_MIRROR, base_url=BASE, readonly=True)
    cache.put(BASE + "/linux-kernel/2023/06/01/1", b"overwritten?")
    cache.put(BASE + "/linux-kernel/2023/06/01/99", b"new?")
    after = {p: p.stat().st_mtime_ns for p in (DATA_MIRROR / "linux-kernel/2023/06/01").rglob("*")}
    assert before == after


def test_fallbacks_are_read_after_the_main_root(tmp_path):
    main, extra = tmp_path / "main", tmp_path / "extra"
    ArchiveCache(extra, base_url=BASE).put(BASE + "/linux-kernel/2023/06/01/1", b"from fallback")
    ArchiveCache(extra, base_url=BASE).put(BASE + "/linux-kernel/2023/06/01/2", b"fallback 2")
    cache = ArchiveCache(main, base_url=BASE, fallbacks=[extra])
    cache.put(BASE + "/linux-kernel/2023/06/01/2", b"main 2")
    assert cache.get(BASE + "/linux-kernel/2023/06/01/1") == b"from fallback"
    assert cache.get(BASE + "/linux-kernel/2023/06/01/1", fallbacks=False) is None
    assert cache.get(BASE + "/linux-kernel/2023/06/01/2") == b"main 2"
    assert cache.get(BASE + "/linux-kernel/2023/06/01/3") is None


def test_base_url_with_port(tmp_path):
    cache = ArchiveCache(tmp_path, base_url="http://127.0.0.1:8123/")
    assert cache.path_for("http://127.0.0.1:8123/linux-kernel/") == tmp_path / "linux-kernel/index.html"
    with pytest.raises(ow.BadArchiveURL):
        cache.path_for("http://127.0.0.1:8124/linux-kernel/")
    with pytest.raises(ValueError):
        ArchiveCache(tmp_path, base_url="http://127.0.0.1:8123/prefix")
