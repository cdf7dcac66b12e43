#!/usr/bin/env bash
# Installs every Debian 12 package TGraph Studio needs to build, test and run.
# Idempotent: when all packages are present it does nothing (no apt-get update, no network).
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config dpkg-dev ccache git
  # Qt 6 (libqt6opengl6-dev is required by Qt6Charts' CMake config, see docs/build.md §1)
  # (libxkbcommon-dev silences a warning of Qt6Gui's CMake config)
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libxkbcommon-dev
  # Graphviz (cgraph + gvc for layout, dot for cancellable child-process layout)
  libgraphviz-dev graphviz
  # LibTorch; OpenBLAS (its OpenMP build shares LibTorch's threads) replaces netlib reference BLAS
  # (35x faster matmul); Gloo headers for c10d
  libtorch-dev libopenblas0-openmp libgloo-dev
  # core formats and storage (zip, npz and protobuf are our own code); JSON through nlohmann
  libsqlite3-dev zlib1g-dev nlohmann-json3-dev
  # xz-compressed files of XLA dump folders (core/dump; gzip goes through zlib)
  liblzma-dev
  # the public dataset's downloads and archives (tgraph data fetch, core/data)
  libcurl4-openssl-dev libarchive-dev
  # HMAC-SHA256 of the data-parallel workers' shared token (libcrypto)
  libssl-dev
  # test fixtures (numpy/scipy) and the PyTorch reference of the model parity test
  python3 python3-numpy python3-scipy python3-torch
  # the Python module `import tgraph` (app/python, docs/python.md) and its tests (tests/python)
  pybind11-dev python3-dev python3-pytest
  # fonts of offscreen renders and screenshots (QT_QPA_PLATFORM=offscreen needs no X server)
  fonts-dejavu-core
  # OCR of the graph view's first view (tst_firstview reads what a person can read)
  tesseract-ocr tesseract-ocr-eng
  # the de_DE.UTF-8 sources the tests compile with localedef to prove numbers ignore the C locale
  # (the locale_de_DE fixture and tst_argparser)
  locales
  # the package's checks (tests/packaging): AppStream and desktop-entry validators, MIME database, man
  appstream desktop-file-utils shared-mime-info man-db
)

missing=()
for p in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: missing packages (${missing[*]}) and not root; run as root" >&2
    exit 1
  fi
fi

echo "install-deps: installing ${#missing[@]} missing packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${PACKAGES[@]}"
