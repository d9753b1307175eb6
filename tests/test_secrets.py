"""Secrets found by what they look like: a fixture of secret-bearing files and of harmless look-alikes, code
indexing that skips the first, and memories stored with their secrets masked."""

from __future__ import annotations

import random
import string

import pytest

from memory_graph.secrets import find_secret, mask_secrets

_R = random.Random(7)


def tok(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    """A random-looking token (deterministic: the fixture is the same every run)."""
    return "".join(_R.choice(alphabet) for _ in range(n))


UP = string.ascii_uppercase + string.digits
B64 = string.ascii_letters + string.digits + "+/"
HEX = "0123456789abcdef"
KEY_BLOCK = "\n".join(tok(64, B64) for _ in range(6))

#: (file name, content) that each hold a secret
SECRET_FILES = [
    ("src/aws_config.py", f'AWS_ACCESS_KEY_ID = "AKIA{tok(16, UP)}"\nAWS_SECRET_ACCESS_KEY = "{tok(40, B64)}"\n'),
    ("notes.md", f"# deploy\nuse key AKIA{tok(16, UP)} with secret {tok(40, B64)} for the bucket\n"),
    ("private_key.txt", f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_BLOCK}\n-----END OPENSSH PRIVATE KEY-----\n"),
    ("deploy/key.txt", f"-----BEGIN RSA PRIVATE KEY-----\n{KEY_BLOCK}\n-----END RSA PRIVATE KEY-----\n"),
    ("certs/server.txt", f"-----BEGIN EC PRIVATE KEY-----\n{KEY_BLOCK}\n-----END EC PRIVATE KEY-----\n"),
    ("gcp-key.json", f'{{"type": "service_account", "project_id": "shop-prod", "private_key_id": "{tok(40, HEX)}",'
                     f' "client_email": "ci@shop-prod.iam.gserviceaccount.com"}}\n'),
    ("token.txt", f"ghp_{tok(36)}\n"),
    ("scripts/release.sh", f"export GITHUB_TOKEN=github_pat_{tok(22)}_{tok(59)}\ngh release create v1\n"),
    ("secrets.json", f'{{"db_password": "{tok(20)}", "stripe_key": "sk_live_{tok(24)}"}}\n'),
    ("secret.yaml", f"api_key: {tok(32)}\nregion: eu-west-1\n"),
    ("credentials.yml", f"production:\n  secret_key_base: {tok(64, HEX)}\n"),
    (".streamlit/secrets.toml", f'[connections.db]\npassword = "{tok(18)}"\nhost = "db.internal"\n'),
    (".docker/config.json", f'{{"auths": {{"registry.example.com": {{"auth": "{tok(40, B64)}="}}}}}}\n'),
    ("kubeconfig.yaml", f"users:\n- name: ci\n  user:\n    token: {tok(60, string.ascii_letters + string.digits + '.-_')}\n"),
    ("cluster/admin.yaml", f"users:\n- name: admin\n  user:\n    client-key-data: {tok(80, B64)}=\n"),
    ("terraform.tfvars", f'db_password = "{tok(24)}"\nregion = "eu-west-1"\n'),
    ("wp-config.php", f"<?php\ndefine( 'DB_PASSWORD', '{tok(20)}' );\ndefine( 'AUTH_KEY', '{tok(48)}' );\n"),
    ("app/settings.py", f'SECRET_KEY = "{tok(50, string.ascii_letters + string.digits + "!@#%^&*(-_=+)")}"\n'),
    ("config/database.yml", f"production:\n  url: postgres://app:{tok(16)}@db.internal:5432/app\n"),
    ("docker-compose.yml", f"services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: {tok(20)}\n"),
    ("src/main/resources/application.properties", f"spring.datasource.password={tok(18)}\n"),
    ("web/src/firebase.js", f'export const config = {{ apiKey: "AIza{tok(35, string.ascii_letters + string.digits + "_-")}" }};\n'),
    ("bots/slack.py", f'SLACK_BOT = "xoxb-{tok(12, string.digits)}-{tok(24)}"\n'),
    ("ops/alerts.py", f'WEBHOOK = "https://hooks.slack.com/services/T{tok(8, UP)}/B{tok(8, UP)}/{tok(24)}"\n'),
    ("billing/charge.rb", f"Stripe.api_key = 'sk_live_{tok(24)}'\n"),
    ("ai/client.ts", f'const openai = new OpenAI({{ apiKey: "sk-proj-{tok(48, string.ascii_letters + string.digits + "_-")}" }});\n'),
    ("ai/claude.py", f'client = Anthropic(api_key="sk-ant-api03-{tok(80, string.ascii_letters + string.digits + "_-")}")\n'),
    ("ci/gitlab.env.txt", f"GITLAB_TOKEN=glpat-{tok(20)}\n"),
    ("mail/send.go", f'const key = "SG.{tok(22)}.{tok(43)}"\n'),
    ("npm_token.txt", f"//registry.npmjs.org/:_authToken=npm_{tok(36)}\n"),
    ("pypi.txt", f"password = pypi-AgEIcHlwaS5vcmc{tok(60)}\n"),
    ("ml/hub.py", f'HF_TOKEN = "hf_{tok(34, string.ascii_letters)}"\n'),
    ("redis.conf", f"requirepass {tok(2)}\nmasterauth {tok(4)}\n# url: redis://:{tok(24)}@cache.internal:6379\n"),
    ("config.ini", f"[smtp]\nhost = mail.internal\npassword = {tok(20)}\n"),
    ("deploy/vars.sh", f"export DB_PASSWORD={tok(20)}\nexport APP_ENV=prod\n"),
    ("src/lib/auth.go", f'var clientSecret = "{tok(32)}"\n'),
    ("README.internal.md", f"Log in with `mongodb+srv://admin:{tok(14)}@cluster0.mongodb.net/app`\n"),
    ("k8s/secret.yaml", f"kind: Secret\ndata:\n  access_token: {tok(40, B64)}==\n"),
    ("integrations/jira.json", f'{{"jira": {{"api_token": "{tok(24)}"}}}}\n'),
    ("mobile/keys.swift", f'let apiKey = "{tok(32)}"\n'),
    ("tests/fixtures/live.py", f'AWS_SECRET_ACCESS_KEY = "{tok(40, B64)}"  # the real one, by mistake\n'),
    ("ansible/group_vars/all.yml", f"vault_password: {tok(24)}\n"),
]

#: (file name, content) that look like secrets but hold none
HARMLESS_FILES = [
    ("src/aws.py", 'import os\nkey = os.environ["AWS_SECRET_ACCESS_KEY"]\nid_ = os.getenv("AWS_ACCESS_KEY_ID")\n'),
    ("docs/keys.md", "AWS access key ids start with AKIA and have 20 characters; never commit them.\n"),
    ("docs/setup.md", "Set `password: <your password>` in config.yml, then run `make up`.\n"),
    (".env.example.txt", "API_KEY=changeme\nDB_PASSWORD=\nSECRET_KEY=your_secret_key_here\n"),
    ("ci.yml", "env:\n  GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}\n  NPM_TOKEN: ${NPM_TOKEN}\n"),
    ("app/settings_dev.py", "SECRET_KEY = get_random_secret_key()\nDEBUG = True\n"),
    ("src/login.py", "def login(user, password):\n    return check_password(password, user.password_hash)\n"),
    ("src/tokens.py", 'token_type = "bearer"\naccess_token_lifetime = 3600\n'),
    ("src/urls.py", 'password_reset_url = "/accounts/password/reset/"\n'),
    ("config/database.yml", "development:\n  url: postgres://app@localhost:5432/app_dev\n"),
    ("docker-compose.dev.yml", "services:\n  db:\n    environment:\n      POSTGRES_PASSWORD: ${POSTGRES_PASSWORD}\n"),
    ("tests/test_auth.py", 'def test_login():\n    assert login("ann", password="hunter2")\n'),
    ("keys/public.pem.txt", f"-----BEGIN PUBLIC KEY-----\n{KEY_BLOCK}\n-----END PUBLIC KEY-----\n"),
    ("certs/ca.txt", f"-----BEGIN CERTIFICATE-----\n{KEY_BLOCK}\n-----END CERTIFICATE-----\n"),
    ("ssh.md", "Your key is read from `private_key_path = ~/.ssh/id_rsa` unless you pass --key.\n"),
    ("package-lock.txt", f'"integrity": "sha512-{tok(86, B64)}=="\n'),
    ("CHANGELOG.md", f"- fixed token refresh ({tok(40, HEX)})\n"),
    ("ml/requirements.txt", "scikit-learn==1.5.0\nsk-learn-extras==0.2\n"),
    ("docs/stripe.md", "Test keys begin with sk_test_ and live keys with sk_live_; use the test ones here.\n"),
    ("src/models.py", "class Secret(Model):\n    name = CharField()\n    secret_hash = CharField()\n"),
    ("src/api.ts", "const apiKey = process.env.API_KEY;\nconst token = await getToken();\n"),
    ("src/config.go", 'var apiKey = os.Getenv("API_KEY")\n'),
    ("data/users.csv", f"id,name,uuid\n1,ann,{tok(8, HEX)}-{tok(4, HEX)}-{tok(4, HEX)}-{tok(4, HEX)}-{tok(12, HEX)}\n"),
    ("src/hash.py", f'EMPTY_SHA256 = "{tok(64, HEX)}"\n'),
    ("README.md", "Authenticate with `gh auth login`; the CLI stores your token in the keychain.\n"),
    ("docs/env.md", "| variable | meaning |\n|---|---|\n| `OPENAI_API_KEY` | your key, from the dashboard |\n"),
    ("src/crypto.rs", "fn private_key(&self) -> &PrivateKey { &self.key }\n"),
    ("settings.yaml", "auth:\n  token_header: Authorization\n  password_min_length: 12\n"),
    ("src/form.html", '<input type="password" name="password" placeholder="Password">\n'),
    ("src/messages.po", 'msgid "Invalid password"\nmsgstr "Mot de passe invalide"\n'),
    ("nginx.conf", "auth_basic_user_file /etc/nginx/.htpasswd;\n"),
    ("src/redis.py", 'client = Redis.from_url("redis://localhost:6379/0")\n'),
    ("docs/mongo.md", "Connect with `mongodb+srv://<user>:<password>@cluster0.mongodb.net/app`.\n"),
    ("src/jwt.py", 'ALGORITHM = "HS256"\nsecret = settings.JWT_SECRET\n'),
    ("k8s/deployment.yaml", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef: {name: db, key: password}\n"),
    ("src/git.py", f'HEAD = "{tok(40, HEX)}"\n'),
    ("src/image.py", f'PIXEL = "data:image/png;base64,{tok(60, B64)}"\n'),
    ("terraform/main.tf", 'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n'),
    ("src/secrets_manager.py", 'def get_secret(name):\n    return client.get_secret_value(SecretId=name)["SecretString"]\n'),
    ("docs/rotate.md", "To rotate the API key, revoke the old one in the console and set API_KEY again.\n"),
    ("src/salt.py", 'SALT_LENGTH = 16\nsalt = os.urandom(SALT_LENGTH)\n'),
    ("tests/conftest.py", 'PASSWORD = "password"\nTOKEN = "test-token"\n'),
]


def test_the_fixture_is_large_enough():
    assert len(SECRET_FILES) >= 40 and len(HARMLESS_FILES) >= 40


@pytest.mark.parametrize("name,content", SECRET_FILES, ids=[n for n, _ in SECRET_FILES])
def test_every_secret_bearing_file_is_caught(name, content):
    assert find_secret(content) is not None, name


def test_at_most_one_harmless_look_alike_in_twenty_is_flagged():
    flagged = [(name, find_secret(content)) for name, content in HARMLESS_FILES if find_secret(content)]
    assert len(flagged) <= 0.05 * len(HARMLESS_FILES), flagged


def test_a_memory_keeps_its_words_and_loses_its_secrets():
    text = (f"Deploy with AKIA{tok(16, UP)} and password {tok(3)}; the db is "
            f"postgres://app:{tok(16)}@db.internal/app")
    masked, kinds = mask_secrets(text)
    assert kinds == ["AWS access key", "password in a URL"]
    assert "AKIA" not in masked and "[secret removed: AWS access key]" in masked
    assert masked.startswith("Deploy with ") and "postgres://app:[secret removed: password in a URL]@db" in masked
    assert mask_secrets("nothing to hide here") == ("nothing to hide here", [])


def test_code_indexing_skips_a_file_that_holds_a_secret_and_drops_it_once_it_does(tmp_path, engine):
    """A file whose name says nothing is skipped for what it holds, counted under "secret"; a file indexed
    before a secret was pasted into it leaves the index at the next run."""
    from codebase import index_project

    src = tmp_path / "proj"
    (src / "src").mkdir(parents=True)
    name, content = SECRET_FILES[0]  # src/aws_config.py
    (src / name).write_text(content)
    (src / "src" / "billing.py").write_text("def charge(amount):\n    return gateway.charge(amount)\n")
    (src / "src" / "mail.py").write_text("def send_welcome(user):\n    return smtp.send(user.email)\n")
    report = index_project(engine, src, project="proj")
    assert report.skipped.get("secret") == 1
    assert set(engine.code_files("proj")) == {"src/billing.py", "src/mail.py"}
    (src / "src" / "billing.py").write_text(
        "def charge(amount):\n    return gateway.charge(amount)\n\n" + SECRET_FILES[24][1])  # a Stripe key
    report = index_project(engine, src, project="proj")
    assert report.skipped.get("secret") == 2 and report.files_removed == 1
    assert set(engine.code_files("proj")) == {"src/mail.py"}
    assert [h.record["path"] for h in engine.search_code("charge gateway amount", project="proj")] == ["src/mail.py"]


def test_a_memory_is_stored_with_its_secrets_masked(engine):
    key = f"AKIA{tok(16, UP)}"
    mid = engine.store(f"The deploy role uses {key} for the artifacts bucket", project="acme")
    stored = engine.get(mid)[0].content
    assert key not in stored and "[secret removed: AWS access key]" in stored
    assert not engine.search(key, mode="bm25")
    token = f"ghp_{tok(36)}"
    engine.update(mid, title=f"deploy role {token}")
    assert token not in engine.get(mid)[0].title and "[secret removed: GitHub token]" in engine.get(mid)[0].title


#: (what, a note as a person writes it, the secret in it): masked in what is stored, although no rule for code
#: files flags it (``secrets.WRITTEN``)
WRITTEN_NOTES = [
    ("a database URL", "the staging db is postgres://admin:hunter22@db.internal:5432/app", "hunter22"),
    ("a URL in an env line", "DATABASE_URL=postgres://app:Tr0ub4dor3@10.0.0.5/app", "Tr0ub4dor3"),
    ("an exported password", "export DB_PASSWORD=correcthorsebattery", "correcthorsebattery"),
    ("an inline env", "PGPASSWORD=Sup3rS3cret psql -h db", "Sup3rS3cret"),
    ("a quoted secret key", 'SECRET_KEY = "django-insecure-4x!b"', "django-insecure-4x!b"),
    ("a password in prose", "the redis password is s3cr3tP4ss, ask Kim", "s3cr3tP4ss"),
    ("a password in YAML", "password: hunter2", "hunter2"),
    ("a mysql command", "mysql -u root -pMyS3cretPwd123 shop", "MyS3cretPwd123"),
    ("a JSON Web Token", "curl -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
                         "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U' api/v1/me", "dozjgNryP4J3jVmNHl0w5N"),
    ("a bearer token", f"Authorization: Bearer {tok(40)}", None),
]
#: notes about secrets that hold none: each is stored as written
HARMLESS_NOTES = [
    "the password is stored in 1Password under Ops",
    "rotate the API token every 90 days",
    "password = get_password()",
    "API_KEY = os.environ['API_KEY']",
    "set DB_PASSWORD=${DB_PASSWORD} in CI",
    "connect with postgres://user:password@localhost/db",
    "token: <your token>",
    "the password reset flow emails a token",
    "tokenizer: bert-base-uncased",
    "max_tokens: 4096 and num_tokens: auto",
    "secret: true",
    "the token was expired",
    '"docstring_tokens": "Configuration - friendly boolean"',
    "cloudant(user=conn.login, passwd=conn.password, account=conn.host)",
    "consumer_secret = twitter_credential ( 'consumer_secret' )",
    "pwd = ':%s@' % parsed.password",
    "boto3.Session(aws_secret_access_key=aws_secret_access_key)",
    "API key: Implementation pending, see the ticket",
]


@pytest.mark.parametrize("what,note,secret", WRITTEN_NOTES, ids=[w for w, _, _ in WRITTEN_NOTES])
def test_a_secret_a_person_writes_down_is_masked_in_what_is_stored(what, note, secret, engine):
    secret = secret or note.rsplit(" ", 1)[-1]
    masked, kinds = mask_secrets(note)
    assert secret not in masked and kinds and "[secret removed:" in masked
    mid = engine.store(note, project="ops")
    assert secret not in engine.get(mid)[0].content


@pytest.mark.parametrize("note", HARMLESS_NOTES)
def test_a_note_about_secrets_that_holds_none_is_stored_as_written(note):
    assert mask_secrets(note) == (note, [])
