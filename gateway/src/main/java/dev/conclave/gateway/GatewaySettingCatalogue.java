package dev.conclave.gateway;

import dev.conclave.settings.Setting;
import dev.conclave.settings.SettingCatalogue;

import java.util.List;

/** The gateway's settings for the catalogue of every module's settings (found through ServiceLoader). */
public final class GatewaySettingCatalogue implements SettingCatalogue {

  @Override
  public List<Setting<?>> settings() {
    return SettingCatalogue.declaredIn(GatewaySettings.class);
  }
}
