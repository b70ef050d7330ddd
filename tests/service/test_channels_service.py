"""``agentdesk channel`` with the home's kernel running goes through it: an added WebChat channel is served
by the kernel process at once, and a configured channel starts again with the kernel."""

from __future__ import annotations

import urllib.request

from kernel.cli import main

from .conftest import KernelProcess


def page(address: str) -> str:
    with urllib.request.urlopen(address, timeout=30) as r:  # noqa: S310 - the kernel's own loopback page
        return r.read().decode()


def test_a_channel_added_through_the_running_kernel_is_served_and_comes_back_with_it(kernel_proc, kernel_env,
                                                                                       agentdesk_home, capsys):
    assert main(["channel", "add", "web", "--kind", "webchat", "--listen", "127.0.0.1:0"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("added web (webchat); running; page at http://127.0.0.1:")
    address = out.rsplit("page at ", 1)[1].strip()
    assert "Agentdesk WebChat" in page(address)  # served by the kernel process, not this one
    kernel_proc.stop()
    again = KernelProcess(agentdesk_home, kernel_env).start()
    try:
        for _ in range(300):  # the channels start beside the socket, a moment after it answers
            assert main(["channel", "list"]) == 0
            listed = capsys.readouterr().out
            if "\trunning\t" in listed:
                break
        assert listed.startswith("web\twebchat\trunning\t")
        assert "Agentdesk WebChat" in page(listed.rstrip().rsplit("\t", 1)[1])
    finally:
        again.stop()
