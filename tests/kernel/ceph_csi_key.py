#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""ceph-csi's "metadata" KMS (internal/kms/secretskms.go), written apart from
rbd-volume's own C++ so that the kernel suite checks one against the other.

  ceph_csi_key.py wrap VOLUME-ID DEK-FILE    KEK on stdin; makes a data key as
                                             ceph-csi's provisioner does, writes
                                             it to DEK-FILE (0600) and prints
                                             the JSON to keep in the image's
                                             rbd.csi.ceph.com/dek
  ceph_csi_key.py unwrap VOLUME-ID JSON      KEK on stdin; prints the data key
"""
import base64
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives.ciphers.aead import AESGCM


def kek(passphrase: bytes, volume_id: str) -> bytes:
    # scrypt.Key(passphrase, volumeID, 32768, 8, 1, 32)
    return hashlib.scrypt(passphrase, salt=volume_id.encode(), n=32768, r=8, p=1,
                          maxmem=64 << 20, dklen=32)


def wrap(passphrase: bytes, volume_id: str, dek_file: str) -> None:
    # generateNewEncryptionPassphrase: 20 random bytes, base64.URLEncoding
    dek = base64.urlsafe_b64encode(os.urandom(20))
    nonce = os.urandom(12)
    sealed = AESGCM(kek(passphrase, volume_id)).encrypt(nonce, dek, None)
    fd = os.open(dek_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(dek)
    # Go marshals []byte as standard base64
    print(json.dumps({"dek": base64.b64encode(sealed).decode(),
                      "nonce": base64.b64encode(nonce).decode()}, separators=(",", ":")))


def unwrap(passphrase: bytes, volume_id: str, stored: str) -> None:
    kept = json.loads(stored)
    dek = AESGCM(kek(passphrase, volume_id)).decrypt(
        base64.b64decode(kept["nonce"]), base64.b64decode(kept["dek"]), None)
    sys.stdout.buffer.write(dek)


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("wrap", "unwrap"):
        print(__doc__, file=sys.stderr)
        return 2
    passphrase = sys.stdin.buffer.read()
    if sys.argv[1] == "wrap":
        wrap(passphrase, sys.argv[2], sys.argv[3])
    else:
        unwrap(passphrase, sys.argv[2], sys.argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main())
