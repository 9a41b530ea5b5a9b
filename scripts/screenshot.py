"""Screenshot of the hand viewer for the README (`make screenshot`): opens a page written by
`sichuan trace --format html` in headless Chromium and saves it as a PNG.

    python scripts/screenshot.py hand.html docs/viewer.png [--step N | --step win]

``--step win`` (the default) shows the table at the hand's last win, where there is most to see.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMEDRIVER = "/usr/bin/chromedriver"


def browser(width: int = 1480, height: int = 1000) -> webdriver.Chrome:
    """Headless Debian Chromium (the tests open it the same way)."""
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1"):
        opts.add_argument(arg)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def save_small(png: bytes, path: Path) -> None:
    """A 256-colour PNG (a third of the size; the page has few colours) when Pillow is there."""
    try:
        from PIL import Image
    except ImportError:
        path.write_bytes(png)
        return
    import io

    Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, dither=Image.Dither.NONE).save(path, optimize=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("page")
    ap.add_argument("png")
    ap.add_argument("--step", default="win", help="event index, or 'win' for the hand's last win")
    ap.add_argument("--width", type=int, default=1480)
    ap.add_argument("--height", type=int, default=960)
    args = ap.parse_args(argv)
    page = Path(args.page).resolve()
    if not page.is_file():
        print(f"error: {page} does not exist", file=sys.stderr)
        return 1
    d = browser()
    try:
        d.get(page.as_uri())
        if args.step == "win":
            step = d.execute_script(
                "const items = [...document.querySelectorAll('#events li[data-kind=win]')];"
                "return items.length ? +items[items.length - 1].dataset.i + 1 : window.handViewer.length - 1;")
        else:
            step = int(args.step)
        d.execute_script("window.handViewer.go(arguments[0]);", step)
        d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",     # the viewport itself, browser bars aside
                          {"width": args.width, "height": args.height, "deviceScaleFactor": 1, "mobile": False})
        Path(args.png).parent.mkdir(parents=True, exist_ok=True)
        save_small(d.get_screenshot_as_png(), Path(args.png))
    finally:
        d.quit()
    print(f"wrote {args.png} (event {step})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
