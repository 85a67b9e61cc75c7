from typing import Any, Callable, Dict, List, Optional, Tuple, Union, final

__all__ = [
    "NativeAuth",
    "NativeJob",
    "create_auth",
    "compile_config",
    "error_types",
    "max_body_bytes",
    "run_cli",
    "EngineError",
]

class EngineError(Exception): ...

@final
class NativeJob:
    def run(self) -> Any: ...

@final
class NativeAuth:
    @property
    def base_path(self) -> str: ...
    @property
    def max_in_flight(self) -> int: ...
    @property
    def session_is_hookless(self) -> bool: ...
    @property
    def in_flight(self) -> int: ...
    def begin(
        self,
        method: str,
        url: str,
        headers: List[Tuple[str, str]],
        body: Optional[bytes] = None,
        remote_address: Optional[str] = None,
    ) -> Union[Tuple[int, List[Tuple[str, str]], bytes], NativeJob]: ...
    def begin_session(self, url: str, cookie: Optional[str] = None, with_identity: bool = False) -> NativeJob: ...
    def handle(
        self,
        method: str,
        url: str,
        headers: List[Tuple[str, str]],
        body: Optional[bytes] = None,
        remote_address: Optional[str] = None,
    ) -> Tuple[int, List[Tuple[str, str]], bytes]: ...
    def get_session(self, url: str, cookie: Optional[str] = None, with_identity: bool = False) -> Any: ...
    def call_hook(self, hook: str, args_json: str) -> str: ...
    def sign_in_url(self, callback_url: str) -> str: ...
    def get_access_token(self, user_id: str, provider: str) -> Optional[Dict[str, Any]]: ...
    def passkeys(self, user_id: str, call_json: str) -> Any: ...
    def sessions(self, user_id: str, call_json: str) -> Any: ...
    def two_factor(self, user_id: str, call_json: str) -> Any: ...
    def sign_in(
        self,
        provider: str,
        fields_json: str,
        method: str,
        url: str,
        headers: List[Tuple[str, str]],
        remote_address: Optional[str] = None,
    ) -> Tuple[str, List[str]]: ...
    def sign_out(self, method: str, url: str, headers: List[Tuple[str, str]]) -> Tuple[str, List[str]]: ...
    def password_action(
        self,
        action: str,
        fields_json: str,
        method: str,
        url: str,
        headers: List[Tuple[str, str]],
        remote_address: Optional[str] = None,
    ) -> Tuple[str, List[str]]: ...

def create_auth(
    config_json: str,
    hooks: List[str],
    dispatch: Callable[[str, str, Optional[float]], Tuple[int, str]],
) -> Union[NativeAuth, Tuple[str, str, str]]: ...
def compile_config(
    marked_json: str,
) -> Union[Tuple[str, List[Tuple[int, str]], List[int]], Tuple[str, str, str]]: ...
def error_types() -> List[str]: ...
def max_body_bytes() -> int: ...
def run_cli(args: List[str]) -> int: ...
