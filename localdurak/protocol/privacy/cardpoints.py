"""The 52 card points, ``from_uniform(SHA-512(CARD_DOMAIN ‖ card text)[:32])`` (privacy.md).

Shipped as constants because ``from_uniform`` is deprecated upstream;
tests/protocol/test_privacy_group.py re-derives every one.  Index i is the point of ``CARDS[i]``
(canonical order, localdurak.game.cards).
Generated once; do not edit by hand.
"""

from __future__ import annotations

from typing import Final

CARD_DOMAIN: Final = b"localdurak/card-point/v1:"

CARD_POINTS: Final[tuple[bytes, ...]] = (
    bytes.fromhex("b0a75c8842044871c302c0acc9edefa6dc919fdb1a45f7b4870e89a7881d2205"),  # 2S
    bytes.fromhex("0e9fe38caa392962acdcdcc84dd1d208d5ffeaf8c75eacd576ec1b3eeee059de"),  # 3S
    bytes.fromhex("fa4a340a449a64bb66c6c10bd6eaa56fea6de66dc0c804bd28ccf4e1fcfec9f8"),  # 4S
    bytes.fromhex("043c62fdad0bdce71b0de098b7b0d9bed18242895f7029596faadcf548073f2f"),  # 5S
    bytes.fromhex("389c10fdd623985fd86060c7a9e0526105da156ab87f0b795a1ac831216b342e"),  # 6S
    bytes.fromhex("e8f031668cd017ce44a2772df78b3ce5bf24d3428759369f457a025b549e1a5e"),  # 7S
    bytes.fromhex("221ce78f6e37f384053ccb1d24ce1ac79ef9cce39ff3611cdfbaf6e26f31166e"),  # 8S
    bytes.fromhex("f4f2b8389e9d1ae5e4cb272b2f434ddca55f690ea27bc0a1071b4ec2ee27db52"),  # 9S
    bytes.fromhex("cf1b99c3cdd7b22f116ab400f025c2d23ec82c07eb6ce42f8d052f51782d4960"),  # TS
    bytes.fromhex("b1593a78c5fab6884779d419c773af90f8b8756adf3954fbfc5c79c012737fe7"),  # JS
    bytes.fromhex("2f4a8b14bcc915e69d2124a979295b610b653b0897cbd46795e06828f5d94dcc"),  # QS
    bytes.fromhex("f7bb55eef92a2f9e914bbec1a475daa780618b9d6c4bcbbc807f6cc8e4266327"),  # KS
    bytes.fromhex("39121bef40d1256e8e6b270256cc2b0350bda034d925c92b369155b3e99fe4ff"),  # AS
    bytes.fromhex("1a74173d41cb986249359d52301c2a0117352d41249b4a2d9d85a8c4fefcb3fb"),  # 2H
    bytes.fromhex("ef0d1fb758e26e6bc18cd142805a9de32f4574933cdd5b03531b8f092ea80298"),  # 3H
    bytes.fromhex("9a65a6efb2edaf7a971d0c7550247ed8ff7019d31691bb18eebfe8124c9c5159"),  # 4H
    bytes.fromhex("b9a70aed502daffc098e55f5c604502c490707224b5e2a9a7086ee608393b8ea"),  # 5H
    bytes.fromhex("4fa21eb2a01ecfc551b98af38d7422e27b85d25295e940c91ebcab3aac73d1e3"),  # 6H
    bytes.fromhex("2b81f064550c20504d355563fbbb51351753104f8bb33e82d4d98e64430f5714"),  # 7H
    bytes.fromhex("d549b0f2cf14c1fc6664ada2e9443060b044db6a2941758e19884e32524e47c2"),  # 8H
    bytes.fromhex("29945fb210fcb69325436ebfecf6eb8c2bf8afada9a6b35be1aac790e7084b49"),  # 9H
    bytes.fromhex("67ab7b0d7706585a1b99b5d7d837a068d79d891373746d9eb1c11d9f4da4261e"),  # TH
    bytes.fromhex("0739618c63ec4428be909762e18714fcd65dfd2fcc0ed5b15ad9fa5a35dd1c6a"),  # JH
    bytes.fromhex("f7490f581e73cc0d15d3fa8db9b60abd5393eb3882fcb5152068981de3d1477c"),  # QH
    bytes.fromhex("f17a9d38f1e126ea809f50cebbdd74aba769a4458cc60fb13c9a729261f7042b"),  # KH
    bytes.fromhex("75cde992af982100c3599b2397df36580b7aeff42ee0718bbff52b3e3b4b3d8a"),  # AH
    bytes.fromhex("7f5e5c5bf19be86f1e8f37907553740ab33e9fee310b2af492a9a8a5d925101f"),  # 2D
    bytes.fromhex("9ec37d21a0b90612bffa0d8d3bbf0f5b267084f52de38b4d1d75bb737ef9b63d"),  # 3D
    bytes.fromhex("82d88c447fd6d65b4001b158bbdd43f813d31a5e15d530f0b7b9f14cf92d7a8f"),  # 4D
    bytes.fromhex("57236ac11e07d3bb0d1e97e336472da1e121e5de4c55aa3d5146807aade4b8dd"),  # 5D
    bytes.fromhex("abcee8600194b73cf7b0c962be031d02b1e21d9cf28d30faf811cb5b0984fbae"),  # 6D
    bytes.fromhex("d368d76fadbf5a9827f16176aecd129b802c150fd31cd609f4cc1aeeac5bd47d"),  # 7D
    bytes.fromhex("e583491823ff8f813d3a170dc8127903c3880b185fb4114207c3e395d994f5b0"),  # 8D
    bytes.fromhex("c92373396b1f2fb6492e82bd8527e9fdb5ed9143dd0398427ab630c39dfbd26d"),  # 9D
    bytes.fromhex("f4ec9b2814070be5cba4f9b5454d5756cc1d900a222e7dec8aaac2ec17036b6e"),  # TD
    bytes.fromhex("d005b30cea313800eb8de976cf0f4e0c42f8d652fef3fd2de26d53ca5ff71e28"),  # JD
    bytes.fromhex("d343bccda5a960c88d647637a98692b82ed10527a59b7651ff6e25c3a09996ac"),  # QD
    bytes.fromhex("56fadad34a460639d66c499ce4f654758beb9be62e7e9bff3218de66b5c3277a"),  # KD
    bytes.fromhex("7ac2f6b5c25ec888b4bdca344e5c336a7f6ff3c1094cd6252c85957c1c7813f8"),  # AD
    bytes.fromhex("7bcaadfe5932dce7441036100a37538a8449fe581d57abbe8e5561f37b2f1ba6"),  # 2C
    bytes.fromhex("293123ba5287e6ada4e9c8eca807bb23e725b808180be3489f7a82920f2faa14"),  # 3C
    bytes.fromhex("11a5a3e4a029842e94707a60098e553c6a6accefbff01ae268959f91f04d9516"),  # 4C
    bytes.fromhex("cdbacf088295fb709181f7f75accfad75b857f970ac115a79f721370df4688dc"),  # 5C
    bytes.fromhex("e7ca1f312dd40317eda92c697c1d8864200738f4d4e38344d45b8d36e3828a3a"),  # 6C
    bytes.fromhex("5641eb4181f3dc2d35cc77ed8511a05de23bf7e7871551ba6aeafacded9e2e2b"),  # 7C
    bytes.fromhex("377cd0a83480944defde43494e00de5936982ebac5590f8c0864d2d31be6f94d"),  # 8C
    bytes.fromhex("a874dc457a7ce07e23b3d9e8274d194b310491fd79b813da96f821a916c7225c"),  # 9C
    bytes.fromhex("ab901c74a87331d9d788809a15b6f7bcd37d85a5d16f9c0de3d0cecb9e30f1a0"),  # TC
    bytes.fromhex("9178d748d53fdf43737553742afa28595fee40f73785b861328e3956eecb4ba8"),  # JC
    bytes.fromhex("73c1298f7b4f14118e63f1030f7cd47b30de25f8b9a94d03a3d9847166e23111"),  # QC
    bytes.fromhex("d0e3af5c65e761a7b03a3ed5cea3cd6974c42f203c97abab666bf3cf87e8ad6b"),  # KC
    bytes.fromhex("3b54978446cc740f0ae4d1a71f3a58f163ad4ba2934ffc4d2a4b5d7e78b5f7ee"),  # AC
)
