#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
#
# provider-answers.py LIBRARY HEADER: call every function LIBRARY defines
# (nm -D) and check that it gives the "not this device" answer its return
# type in HEADER (rdma-core 44's <infiniband/*dv.h>) calls for:
#
#   a pointer             NULL, errno EOPNOTSUPP
#   int                   EOPNOTSUPP; -1 with errno EOPNOTSUPP;
#                         mlx5dv_dump_dr_*: -EOPNOTSUPP
#   ssize_t               -1, errno EOPNOTSUPP
#   bool                  false (mlx5dv_is_supported)
#   void                  returns (nothing to check)
#
# Every argument is NULL/0: no answer may depend on one, since no object
# of these providers exists on xib.  A function the header does not
# declare, or of another return type, is a failure.  Prints one line per
# failure and a summary; exits 1 on any failure.

import ctypes
import os
import re
import subprocess
import sys

EOPNOTSUPP = 95


def declarations(header):
    text = open(header, encoding='utf-8').read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'^\s*#[^\n]*', ' ', text, flags=re.M)


def return_type(text, name):
    """The return type of the (non-inline) prototype of @name, or None."""
    for m in re.finditer(r'\b%s\s*\(' % re.escape(name), text):
        start = max(text.rfind(c, 0, m.start()) for c in ';{}')
        decl = ' '.join(text[start + 1:m.start()].split())
        if not decl or re.search(r'static|return|[(=,]', decl):
            continue
        return decl.replace('extern ', '').replace(' *', '*')
    return None


def defined_functions(lib):
    out = subprocess.run(['nm', '-D', '--defined-only', lib], capture_output=True,
                         text=True, check=True).stdout
    names = set()
    for line in out.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] == 'T':
            names.add(f[2].split('@')[0])
    return sorted(names)


def main():
    lib, header = sys.argv[1], sys.argv[2]
    text = declarations(header)
    names = defined_functions(lib)
    so = ctypes.CDLL(lib, use_errno=True)
    failures = 0
    kinds = {}
    for name in names:
        rt = return_type(text, name)
        if rt is None:
            print('%s: not declared in %s' % (name, header))
            failures += 1
            continue
        fn = getattr(so, name)
        fn.restype = ctypes.c_uint64
        ctypes.set_errno(0)
        raw = fn(*([ctypes.c_void_p(0)] * 8))
        err = ctypes.get_errno()
        val = ctypes.c_int32(raw & 0xffffffff).value
        if rt.endswith('*'):
            kind, ok = 'NULL, EOPNOTSUPP', raw == 0 and err == EOPNOTSUPP
        elif rt == 'void':
            kind, ok = 'void', True
        elif rt == 'bool':
            kind, ok = 'false', raw & 0xff == 0
        elif rt == 'ssize_t':
            kind, ok = '-1, EOPNOTSUPP', raw == 2**64 - 1 and err == EOPNOTSUPP
        elif rt == 'int' and name.startswith('mlx5dv_dump_dr_'):
            kind, ok = '-EOPNOTSUPP', val == -EOPNOTSUPP
        elif rt == 'int' and val == -1:
            kind, ok = '-1, EOPNOTSUPP', err == EOPNOTSUPP
        elif rt == 'int':
            kind, ok = 'EOPNOTSUPP', val == EOPNOTSUPP
        else:
            kind, ok = 'return type %s' % rt, False
        kinds[kind] = kinds.get(kind, 0) + 1
        if not ok:
            print('%s (%s): returned %#x, errno %d; want %s' % (name, rt, raw, err, kind))
            failures += 1
    print('# %s: %d functions: %s' % (os.path.basename(lib), len(names),
          '; '.join('%d %s' % (n, k) for k, n in sorted(kinds.items()))))
    return 1 if failures or not names else 0


if __name__ == '__main__':
    sys.exit(main())
