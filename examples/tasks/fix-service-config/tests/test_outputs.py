import configparser
import os

CONFIG = "/app/service.ini"


def test_config_exists():
    assert os.path.exists(CONFIG)


def test_config_is_valid_ini():
    cfg = configparser.ConfigParser()
    assert cfg.read(CONFIG) == [CONFIG]
    assert cfg.has_section("server")
