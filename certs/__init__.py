"""detour's certificate authority: the CA that sandboxes trust and mitmproxy signs with."""

from certs.authority import CertificateAuthority, CAPaths

__all__ = ["CAPaths", "CertificateAuthority"]
