//! A software WebAuthn authenticator for the passkey tests: a fresh key
//! per authenticator (ES256, EdDSA or RS256, by OpenSSL), attestation
//! `none`, a signature counter, and knobs for the negative cases (wrong
//! origin, wrong RP ID, no user verification, a counter that goes back).
#![allow(dead_code)]

use std::collections::BTreeMap;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use openssl::bn::BigNumContext;
use openssl::ec::{EcGroup, EcKey, PointConversionForm};
use openssl::hash::MessageDigest;
use openssl::nid::Nid;
use openssl::pkey::{PKey, Private};
use openssl::rsa::Rsa;
use openssl::sign::Signer;
use serde_cbor_2::Value as Cbor;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alg {
    Es256,
    EdDsa,
    Rs256,
    /// ES384: a real algorithm the engine does not offer.
    Es384,
}

pub struct SoftAuthenticator {
    pub alg: Alg,
    key: PKey<Private>,
    pub credential_id: Vec<u8>,
    pub user_handle: Vec<u8>,
    pub counter: u32,
    /// Advance the counter on each assertion (false: always 0, as many
    /// platform authenticators do).
    pub counts: bool,
    /// The origin the "browser" puts in clientDataJSON.
    pub origin: String,
    /// The RP ID whose hash goes in authenticator data.
    pub rp_id: String,
    pub user_verified: bool,
    pub backup_eligible: bool,
    /// The `attStmt` of its attestation object (format `none`: empty).
    pub att_stmt: BTreeMap<Cbor, Cbor>,
}

fn int(i: i64) -> Cbor {
    Cbor::Integer(i.into())
}

impl SoftAuthenticator {
    pub fn new(alg: Alg, origin: &str) -> SoftAuthenticator {
        let key = match alg {
            Alg::Es256 => {
                PKey::from_ec_key(EcKey::generate(&EcGroup::from_curve_name(Nid::X9_62_PRIME256V1).unwrap()).unwrap())
                    .unwrap()
            }
            Alg::Es384 => {
                PKey::from_ec_key(EcKey::generate(&EcGroup::from_curve_name(Nid::SECP384R1).unwrap()).unwrap()).unwrap()
            }
            Alg::EdDsa => PKey::generate_ed25519().unwrap(),
            Alg::Rs256 => PKey::from_rsa(Rsa::generate(2048).unwrap()).unwrap(),
        };
        let host = url::Url::parse(origin).unwrap().host_str().unwrap().to_owned();
        SoftAuthenticator {
            alg,
            key,
            credential_id: libauth_core::random::bytes(16),
            user_handle: Vec::new(),
            counter: 0,
            counts: true,
            origin: origin.to_owned(),
            rp_id: host,
            user_verified: true,
            backup_eligible: false,
            att_stmt: BTreeMap::new(),
        }
    }

    pub fn credential_id_b64(&self) -> String {
        B64.encode(&self.credential_id)
    }

    fn cose_key(&self) -> Vec<u8> {
        let mut map = BTreeMap::new();
        match self.alg {
            Alg::Es256 | Alg::Es384 => {
                let ec = self.key.ec_key().unwrap();
                let mut ctx = BigNumContext::new().unwrap();
                let point = ec.public_key().to_bytes(ec.group(), PointConversionForm::UNCOMPRESSED, &mut ctx).unwrap();
                let n = (point.len() - 1) / 2;
                let (alg, crv) = if self.alg == Alg::Es256 { (-7, 1) } else { (-35, 2) };
                map.insert(int(1), int(2));
                map.insert(int(3), int(alg));
                map.insert(int(-1), int(crv));
                map.insert(int(-2), Cbor::Bytes(point[1..1 + n].to_vec()));
                map.insert(int(-3), Cbor::Bytes(point[1 + n..].to_vec()));
            }
            Alg::EdDsa => {
                map.insert(int(1), int(1));
                map.insert(int(3), int(-8));
                map.insert(int(-1), int(6));
                map.insert(int(-2), Cbor::Bytes(self.key.raw_public_key().unwrap()));
            }
            Alg::Rs256 => {
                let rsa = self.key.rsa().unwrap();
                map.insert(int(1), int(3));
                map.insert(int(3), int(-257));
                map.insert(int(-1), Cbor::Bytes(rsa.n().to_vec()));
                map.insert(int(-2), Cbor::Bytes(rsa.e().to_vec()));
            }
        }
        serde_cbor_2::to_vec(&Cbor::Map(map)).unwrap()
    }

    fn flags(&self, attested: bool) -> u8 {
        let mut flags = 0x01; // UP
        if self.user_verified {
            flags |= 0x04;
        }
        if self.backup_eligible {
            flags |= 0x08 | 0x10;
        }
        if attested {
            flags |= 0x40;
        }
        flags
    }

    fn client_data(&self, kind: &str, challenge: &str) -> Vec<u8> {
        json!({ "type": kind, "challenge": challenge, "origin": self.origin, "crossOrigin": false })
            .to_string()
            .into_bytes()
    }

    /// `navigator.credentials.create()` for these options
    /// (`PublicKeyCredentialCreationOptionsJSON`), as `credential.toJSON()`.
    pub fn register(&mut self, options: &Value) -> Value {
        let challenge = options["challenge"].as_str().expect("a challenge");
        self.user_handle = B64.decode(options["user"]["id"].as_str().expect("a user id")).unwrap();
        let client_data = self.client_data("webauthn.create", challenge);
        let mut auth_data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        auth_data.push(self.flags(true));
        auth_data.extend(self.counter.to_be_bytes());
        auth_data.extend([0u8; 16]); // AAGUID: none
        auth_data.extend((self.credential_id.len() as u16).to_be_bytes());
        auth_data.extend(&self.credential_id);
        auth_data.extend(self.cose_key());
        let mut attestation = BTreeMap::new();
        attestation.insert(Cbor::Text("fmt".into()), Cbor::Text("none".into()));
        attestation.insert(Cbor::Text("attStmt".into()), Cbor::Map(self.att_stmt.clone()));
        attestation.insert(Cbor::Text("authData".into()), Cbor::Bytes(auth_data));
        let attestation = serde_cbor_2::to_vec(&Cbor::Map(attestation)).unwrap();
        let id = self.credential_id_b64();
        json!({
            "id": id, "rawId": id, "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(client_data),
                "attestationObject": B64.encode(attestation),
                "transports": ["internal", "hybrid"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }

    /// `navigator.credentials.get()` for these options, as `toJSON()`.
    pub fn authenticate(&mut self, options: &Value) -> Value {
        let challenge = options["challenge"].as_str().expect("a challenge");
        if self.counts {
            self.counter += 1;
        }
        let client_data = self.client_data("webauthn.get", challenge);
        let mut auth_data = Sha256::digest(self.rp_id.as_bytes()).to_vec();
        auth_data.push(self.flags(false));
        auth_data.extend(self.counter.to_be_bytes());
        let mut signed = auth_data.clone();
        signed.extend(Sha256::digest(&client_data));
        let signature = match self.alg {
            Alg::EdDsa => Signer::new_without_digest(&self.key).unwrap().sign_oneshot_to_vec(&signed).unwrap(),
            Alg::Es384 => {
                let mut s = Signer::new(MessageDigest::sha384(), &self.key).unwrap();
                s.update(&signed).unwrap();
                s.sign_to_vec().unwrap()
            }
            _ => {
                let mut s = Signer::new(MessageDigest::sha256(), &self.key).unwrap();
                s.update(&signed).unwrap();
                s.sign_to_vec().unwrap()
            }
        };
        let id = self.credential_id_b64();
        json!({
            "id": id, "rawId": id, "type": "public-key",
            "response": {
                "clientDataJSON": B64.encode(client_data),
                "authenticatorData": B64.encode(auth_data),
                "signature": B64.encode(signature),
                "userHandle": B64.encode(&self.user_handle),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        })
    }
}
