"""Prints where `make install` puts the Python package for PREFIX (argv[1]):
the first folder under PREFIX/lib this python imports packages from
(Debian's /usr/local/lib/python3.X/dist-packages for /usr/local), else
the standard PREFIX/lib/python3.X/site-packages."""

import sys
import sysconfig

prefix = sys.argv[1].rstrip("/")
searched = [d for d in sys.path
            if d.startswith(prefix + "/lib/") and d.endswith("-packages")]
print(searched[0] if searched else sysconfig.get_path(
    "purelib", "posix_prefix", {"base": prefix, "platbase": prefix}))
