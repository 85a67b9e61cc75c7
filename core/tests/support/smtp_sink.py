"""A real SMTP server for core/tests/email_smtp.rs, built on aiosmtpd.

Prints `READY <port>` once it listens on 127.0.0.1, then one JSON line per
message received: envelope, headers, the decoded text and HTML parts, and
the authenticated login (if any). Runs until its stdin closes.

Usage: python3 smtp_sink.py [--auth USER:PASSWORD]
                            [--tls smtps|starttls|starttls-optional --cert PEM --key PEM]
With --auth, AUTH PLAIN/LOGIN is required (over plain text: loopback only).
With --tls smtps the server speaks TLS from the first byte; with starttls it
offers STARTTLS and refuses mail until the client upgrades; with
starttls-optional it offers STARTTLS but also accepts mail in plain text.
Each message's JSON then says whether it arrived over TLS ("tls").
"""

import argparse
import email
import email.policy
import json
import logging
import socket
import ssl
import sys
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword


class Sink:
    def __init__(self, implicit_tls):
        self.implicit_tls = implicit_tls

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        text = message.get_body(preferencelist=("plain",))
        html = message.get_body(preferencelist=("html",))
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        print(
            json.dumps(
                {
                    "mail_from": envelope.mail_from,
                    "rcpt_tos": envelope.rcpt_tos,
                    "from": str(message["From"]),
                    "to": str(message["To"]),
                    "subject": str(message["Subject"]),
                    "content_type": message.get_content_type(),
                    "text": text.get_content() if text is not None else None,
                    "html": html.get_content() if html is not None else None,
                    "login": login,
                    "tls": self.implicit_tls or session.ssl is not None,
                }
            ),
            flush=True,
        )
        return "250 OK"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--auth", help="USER:PASSWORD to require")
    parser.add_argument("--tls", choices=["smtps", "starttls", "starttls-optional"])
    parser.add_argument("--cert", help="PEM certificate chain for --tls")
    parser.add_argument("--key", help="PEM private key for --tls")
    args = parser.parse_args()
    if bool(args.tls) != bool(args.cert and args.key):
        parser.error("--tls needs --cert and --key, and they need --tls")

    options = {}
    if args.auth:
        user, password = args.auth.split(":", 1)

        def authenticator(server, session, envelope, mechanism, auth_data):
            ok = (
                isinstance(auth_data, LoginPassword)
                and auth_data.login.decode() == user
                and auth_data.password.decode() == password
            )
            return AuthResult(success=ok, handled=False, auth_data=auth_data)

        # Deliberate: the test server is on loopback, and lettre's AUTH is
        # what is being tested, not TLS.
        warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
        options = {"authenticator": authenticator, "auth_required": True, "auth_require_tls": False}

    # aiosmtpd logs (and warns about) our deliberate AUTH-without-TLS set-up
    # on every connection; only real errors are worth showing.
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    if args.tls:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(args.cert, args.key)
        if args.tls == "smtps":
            options["ssl_context"] = context
        else:
            options["tls_context"] = context
            options["require_starttls"] = args.tls == "starttls"
    port = free_port()
    controller = Controller(Sink(args.tls == "smtps"), hostname="127.0.0.1", port=port, **options)
    controller.start()
    print(f"READY {port}", flush=True)
    try:
        sys.stdin.read()  # until the test closes our stdin (or dies)
    finally:
        controller.stop()


if __name__ == "__main__":
    main()
