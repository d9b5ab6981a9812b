import stat

from cryptography import x509

from certs.authority import CertificateAuthority


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_ca_is_created_once_with_a_private_key_only_the_owner_reads(state):
    ca = CertificateAuthority(state)
    paths = ca.ensure()
    assert mode(paths.key) == 0o600
    assert mode(paths.mitmproxy_ca) == 0o600
    first = paths.cert.read_bytes()
    assert CertificateAuthority(state).ensure().cert.read_bytes() == first  # idempotent
    cert = x509.load_pem_x509_certificate(first)
    assert cert.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_mitmproxy_confdir_holds_key_and_cert_and_bundle_ends_with_the_cert(state):
    paths = CertificateAuthority(state).ensure()
    cert = paths.cert.read_bytes()
    assert paths.mitmproxy_ca.read_bytes().endswith(cert)
    assert b"PRIVATE KEY" in paths.mitmproxy_ca.read_bytes()
    assert paths.bundle.read_bytes().endswith(cert)
    assert paths.bundle.read_bytes().count(b"BEGIN CERTIFICATE") > 10  # system roots too
    assert str(paths.bundle) in paths.wgetrc.read_text()


def test_what_sandboxes_trust_never_includes_the_key(state):
    trust = CertificateAuthority(state).ensure().trust_files()
    for public in (trust.cert, trust.bundle, trust.wgetrc):
        assert b"PRIVATE KEY" not in public.read_bytes()


def test_rotate_replaces_the_ca_and_keeps_the_old_one(state):
    ca = CertificateAuthority(state)
    old = ca.ensure().cert.read_bytes()
    retired = ca.rotate()
    assert ca.paths.cert.read_bytes() != old
    assert (retired / "detour-ca.pem").read_bytes() == old
    assert ca.paths.mitmproxy_ca.read_bytes().endswith(ca.paths.cert.read_bytes())


def test_concurrent_first_use_agrees_on_one_ca_and_one_signing_key(state):
    from concurrent.futures import ThreadPoolExecutor

    from detour_core.credentials import load_or_create_key

    with ThreadPoolExecutor(8) as pool:
        certs = list(pool.map(lambda _: CertificateAuthority(state).ensure().cert.read_bytes(), range(8)))
        keys = list(pool.map(lambda _: load_or_create_key(state.signing_key), range(8)))
    assert len(set(certs)) == 1 and len(set(keys)) == 1
    assert mode(state.signing_key) == 0o600
