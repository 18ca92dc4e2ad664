/**
 * @module tls-fixture — a self-signed certificate for the name `rebind.test` (valid 2020 to
 * 2120), for tests of the pinned https client: a test points the name at 127.0.0.1 and
 * trusts this certificate. Test-only: the key protects nothing.
 */

export const REBIND_CERT = `-----BEGIN CERTIFICATE-----
MIIBVTCB/KADAgECAgEBMAoGCCqGSM49BAMCMBYxFDASBgNVBAMMC3JlYmluZC50
ZXN0MCAXDTIwMDEwMTAwMDAwMFoYDzIxMjAwMTAxMDAwMDAwWjAWMRQwEgYDVQQD
DAtyZWJpbmQudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABATHj4i5Il//
pg0ZvXLDG2lK6Fx1LaUzKAgqlM/dlboeqk/I5R6YI09oLAwnuUpnVOniilMUsdtZ
gLwW5eOkzRajOTA3MBYGA1UdEQQPMA2CC3JlYmluZC50ZXN0MB0GA1UdDgQWBBQp
XaReh6Mp1pdZEswKECwGKLxf/TAKBggqhkjOPQQDAgNIADBFAiAfznciDNLobbIO
D0Cb63HQYEL5TF1MDIapb4kBOpeBWgIhANy0d0a3CeB2CYrl0oI5uvyeffxHCsrN
vTrGFlLtQS7a
-----END CERTIFICATE-----
`;

export const REBIND_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgTfrTPBmnyerCv4xn
ESj6zIQ4JJTjM/Q6W/B7KswP+BKhRANCAAQEx4+IuSJf/6YNGb1ywxtpSuhcdS2l
MygIKpTP3ZW6HqpPyOUemCNPaCwMJ7lKZ1Tp4opTFLHbWYC8FuXjpM0W
-----END PRIVATE KEY-----
`;
