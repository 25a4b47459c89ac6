"""The secret scan flags real keys and passwords and leaves code alone: template placeholders and code identifiers
(a Cline run once gave 225 "secrets", nearly all of them ``${…}`` and ``isValidPassword = …``)."""

from __future__ import annotations

import pytest

from compressor.secrets import find_secrets

#: What agent transcripts are full of: a name like a secret's, and code or a placeholder where its value would be.
NOT_SECRETS = [
    "const isValidPassword = validatePassword(input);",
    'PASSWORD="${DB_PASSWORD:-changeme}"',
    "password: ${process.env.DB_PASSWORD}",
    "token: ${{ secrets.GITHUB_TOKEN }}",
    "api_key = {{ api_key }}",
    'export const API_KEY = "{{API_KEY}}";',
    "password: <%= ENV['PASS'] %>",
    'query = "SELECT * FROM users WHERE password = %(password)s"',
    "const token = await getToken();",
    "apiKey: string;",
    "password = hashPassword(req.body.password)",
    "secret = self.secret_value",
    "hasToken = true",
    "token = response.data.token",
]
#: Real ones, which must still be found (fake values in real shapes).
SECRETS = [
    ("password=hunter2xyz", "assignment"),
    ('api_key = "a8f5f167f44f4964e6c998dee827110c"', "assignment"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "assignment"),
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx", "openai_key"),
    ("export GH=ghp_" + "Z9y8X7w6V5u4T3s2R1q0" * 2, "github_token"),
    ('"password": "s3cr3t-Passw0rd!"', "assignment"),
]


class TestFalsePositives:
    @pytest.mark.parametrize("text", NOT_SECRETS)
    def test_code_and_placeholders_are_not_secrets(self, text: str) -> None:
        assert find_secrets(text) == []


class TestRealSecrets:
    @pytest.mark.parametrize(("text", "kind"), SECRETS)
    def test_real_keys_and_passwords_are_still_found(self, text: str, kind: str) -> None:
        (finding,) = find_secrets(text)
        assert finding.kind == kind
        assert text[finding.start : finding.end] not in finding.preview  # masked, never shown whole

    def test_a_real_key_beside_a_placeholder_is_found_once(self) -> None:
        text = 'DB_PASSWORD="${DB_PASSWORD}"\napi_key = "a8f5f167f44f4964e6c998dee827110c"'
        assert [finding.kind for finding in find_secrets(text)] == ["assignment"]
