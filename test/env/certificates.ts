// A CA certificate for specs that take PEM certificates (a registry's caCertificate): self-signed,
// P-256, valid until 2126, its key thrown away. Nothing ever verifies a connection against it.
export const EXAMPLE_CA_PEM = `-----BEGIN CERTIFICATE-----
MIIBkzCCATmgAwIBAgIUGnhXLNc1shU3V5aKk41Sa/KnZWAwCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTcmVnaXN0cnktY2EuZXhhbXBsZTAgFw0yNjExMjkxMjM0NTJa
GA8yMTI2MTEwNTEyMzQ1MlowHjEcMBoGA1UEAwwTcmVnaXN0cnktY2EuZXhhbXBs
ZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABH1YXglpLQASNJqGdMYwSi39T+yw
9+MFTvwrAg3bPLngM7S3O/rFMHueAwe76aOsasTDDYpKphdiIFZT7FjCSkmjUzBR
MB0GA1UdDgQWBBQ7YyU+y3n04pSMfnuZw32sVxpChzAfBgNVHSMEGDAWgBQ7YyU+
y3n04pSMfnuZw32sVxpChzAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gA
MEUCIQD9tAUsahnubl5z7u6neLRbau32d2PKCvwNnj8e99tn/AIgPs0BqhpyZ2/f
BYasSAHqe4Qij7TgSSIevvzzOXHvJ6Y=
-----END CERTIFICATE-----`;
